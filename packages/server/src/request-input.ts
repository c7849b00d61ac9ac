// Reading a request's JSON body and query string through zod. Every failure becomes a LedgerError
// (INVALID_JSON, INVALID_INPUT) that http-errors.ts turns into a 400, so a malformed request never
// reaches the ledgers and never writes.

import { InvalidInputError } from '@agent-ledger/core';
import type { Context } from 'hono';
import type { z } from 'zod';
import { HttpError } from './http-errors.ts';

/**
 * The body as JSON (an empty body is `undefined`), checked against `schema`, or against the schema
 * `schema(value)` picks (one item or a batch: a message about the shape sent beats "no union member matched").
 */
export async function readJsonBody<Schema extends z.ZodType>(
  context: Context,
  schema: Schema | ((value: unknown) => Schema),
): Promise<z.output<Schema>> {
  const text = await context.req.text();
  let value: unknown;
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new HttpError('INVALID_JSON', `The request body is not valid JSON (${(error as Error).message}).`);
    }
  }
  return checked(typeof schema === 'function' ? schema(value) : schema, value, 'body');
}

/** The query string, one value per name (hono's `query()`: the first when repeated), checked against `schema`. */
export function readQuery<Schema extends z.ZodType>(context: Context, schema: Schema): z.output<Schema> {
  return checked(schema, context.req.query(), 'query');
}

function checked<Schema extends z.ZodType>(schema: Schema, value: unknown, where: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
  throw new InvalidInputError(`Invalid request ${where}: ${problems}.`, where);
}
