// /v1/search (turns by words across compactions, or by meaning: mode=semantic) and /v1/events (append idempotently, list, verify).

import { InvalidInputError } from '@agent-ledger/core';
import type { AppendEventInput } from '@agent-ledger/events-ledger';
import type { Hono } from 'hono';
import type { z } from 'zod';
import { searchByMeaningView } from '../meaning-search.ts';
import { readJsonBody, readQuery } from '../request-input.ts';
import { eventsQuery, pickAppendEventsBody, searchQuery, verifyQuery } from '../request-schemas.ts';
import type { RouteContext } from './route-context.ts';

export function searchAndEventRoutes(app: Hono, { ledger, events, noEmbedderAdvice }: RouteContext): void {
  app.get('/v1/search', async (context) => {
    const query = readQuery(context, searchQuery);
    if (query.mode === 'semantic') {
      refuseWordOptions(query);
      const request = { query: query.q, session: query.session, limit: query.limit };
      return context.json(await searchByMeaningView(ledger, request, noEmbedderAdvice));
    }
    const result = await ledger.search(query.q, {
      view: query.raw ? 'raw' : 'resolved',
      sessionId: query.session,
      limit: query.limit,
      cursor: query.cursor,
      advanced: query.advanced,
    });
    return context.json(result);
  });

  app.post('/v1/events', async (context) => {
    const body = await readJsonBody(context, pickAppendEventsBody);
    const inputs = ('events' in body ? body.events : [body]) as AppendEventInput[];
    const appended = await events.appendBatch(inputs);
    // Re-sending a batch is safe: stored events come back with duplicate: true and nothing is written.
    const wroteAny = appended.some((item) => !item.duplicate);
    return context.json({ events: appended }, wroteAny ? 201 : 200);
  });

  app.get('/v1/events', async (context) => {
    const query = readQuery(context, eventsQuery);
    return context.json(await events.list({ channel: query.channel, afterSeq: query.after, limit: query.limit ?? 100 }));
  });

  app.get('/v1/events/verify', async (context) => {
    const { channel } = readQuery(context, verifyQuery);
    return context.json(await events.verify({ channel }));
  });

  app.get('/v1/events/:id', async (context) => context.json(await events.get(context.req.param('id'))));
}

/** Options of word search that mean nothing to a search by meaning: refused rather than ignored. */
function refuseWordOptions(query: z.output<typeof searchQuery>): void {
  const given = (['raw', 'cursor', 'advanced'] as const).filter((name) => query[name] !== undefined && query[name] !== false);
  if (given.length === 0) return;
  throw new InvalidInputError(
    `mode=semantic returns the turns nearest the query's meaning, all at once: it takes session and limit, not ${given.join(', ')}.`,
    'mode',
  );
}
