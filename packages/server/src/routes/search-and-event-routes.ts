// /v1/search (turns, across compactions) and /v1/events (append idempotently, list, verify).

import type { AppendEventInput } from '@agent-ledger/events-ledger';
import type { Hono } from 'hono';
import { readJsonBody, readQuery } from '../request-input.ts';
import { eventsQuery, pickAppendEventsBody, searchQuery, verifyQuery } from '../request-schemas.ts';
import type { RouteContext } from './route-context.ts';

export function searchAndEventRoutes(app: Hono, { ledger, events }: RouteContext): void {
  app.get('/v1/search', async (context) => {
    const query = readQuery(context, searchQuery);
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
