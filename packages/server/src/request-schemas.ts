// The zod shapes of request bodies and queries. They check types and sizes at the door; the
// ledgers still check meaning (a text block must not be empty, a tool call gets one result, a cited
// event must exist), and their errors are 4xx as well.

import { z } from 'zod';

const id = z.string().min(1).max(200);
/**
 * A query-string integer: digits only, so "1e3", "0x10" and " 5" are refused rather than guessed;
 * as many digits as `max` has (a longer run of digits is over it anyway).
 */
const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), 'expected a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const queryBoolean = z
  .enum(['true', 'false', '1', '0', ''])
  .transform((value) => value === 'true' || value === '1' || value === '');

const settings = z
  .object({
    contextWindow: z.number().int().positive(),
    reserveTokens: z.number().int().nonnegative(),
    keepRecentTokens: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

/** What a new session may say about itself: on create, and on fork. */
const sessionFields = z
  .object({
    label: z.string().max(500).optional(),
    settings: settings.optional(),
    strategy: z.string().min(1).max(100).optional(),
  })
  .strict();

export const createSessionBody = sessionFields.optional().transform((value) => value ?? {});

const textBlock = z.object({ type: z.literal('text'), text: z.string() }).strict();
const toolUseBlock = z
  .object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() })
  .strict();
const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(textBlock)]).optional(),
    is_error: z.boolean().optional(),
  })
  .strict();
const contentBlock = z.discriminatedUnion('type', [textBlock, toolUseBlock, toolResultBlock]);

export const turnInput = z
  .object({
    role: z.enum(['user', 'assistant']),
    content: z.union([z.string().min(1), z.array(contentBlock).min(1)]),
    eventIds: z.array(id).max(1000).optional(),
    model: z.string().max(200).optional(),
    timestamp: z.number().int().nonnegative().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const singleTurnBody = turnInput.extend({ expectedHeadTurnId: id.nullable().optional() }).strict();
const turnBatchBody = z
  .object({ turns: z.array(turnInput).min(1).max(1000), expectedHeadTurnId: id.nullable().optional() })
  .strict();
/** One turn, or `{ turns: [...] }`; `expectedHeadTurnId` (null = empty session) guards the first. */
export const appendTurnsBody = z.union([singleTurnBody, turnBatchBody]);
export const pickAppendTurnsBody = (value: unknown) => (hasField(value, 'turns') ? turnBatchBody : singleTurnBody);

function hasField(value: unknown, field: string): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && field in value;
}

export const forkBody = sessionFields
  .extend({ full: z.boolean().optional() })
  .strict()
  .optional()
  .transform((value) => value ?? {});

export const compactBody = z
  .object({
    instructions: z.string().max(10_000).optional(),
    strategy: z.string().min(1).max(100).optional(),
    summaryTokens: z.number().int().positive().max(1_000_000).optional(),
    keepFromTurnId: id.optional(),
  })
  .strict()
  .optional()
  .transform((value) => value ?? {});

const eventInput = z
  .object({
    channel: z.string().min(1).max(256),
    externalId: z.string().min(1).max(256),
    author: z.string().max(256).nullable().optional(),
    kind: z.string().min(1).max(256).optional(),
    payload: z.unknown(),
    occurredAt: z.union([z.number(), z.string().max(100)]).optional(),
  })
  .strict()
  .refine((value) => value.payload !== undefined, { message: 'payload is required (any JSON value)', path: ['payload'] });

const eventBatchBody = z.object({ events: z.array(eventInput).min(1).max(1000) }).strict();
export const appendEventsBody = z.union([eventInput, eventBatchBody]);
export const pickAppendEventsBody = (value: unknown) => (hasField(value, 'events') ? eventBatchBody : eventInput);

export const listSessionsQuery = z.object({ limit: queryInteger(1, 1000).optional(), offset: queryInteger(0, 1e9).optional() });

export const contextQuery = z.object({
  budget: queryInteger(1, 10_000_000).optional(),
  query: z.string().max(10_000).optional(),
  session: id.optional(),
  full: queryBoolean.optional(),
  retrieval: queryBoolean.optional(),
});

export const sessionViewQuery = z.object({ session: id.optional() });

export const searchQuery = z.object({
  q: z.string().min(1, 'q is required').max(2000),
  /** `words` (default): full text. `semantic`: stored vectors nearest the query's (the server needs an embedder). */
  mode: z.enum(['words', 'semantic']).optional(),
  raw: queryBoolean.optional(),
  session: id.optional(),
  limit: queryInteger(1, 200).optional(),
  cursor: z.string().min(1).max(2000).optional(),
  advanced: queryBoolean.optional(),
});

export const eventsQuery = z.object({
  channel: z.string().min(1, 'channel is required').max(256),
  after: queryInteger(0, 1e12).optional(),
  limit: queryInteger(1, 1000).optional(),
});

export const verifyQuery = z.object({ channel: z.string().min(1).max(256).optional() });
