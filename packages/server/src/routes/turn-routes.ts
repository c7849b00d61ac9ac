// /v1/turns… and /v1/topics…: read a turn, its context, its history (NDJSON), its topic, the
// turns a compaction stands for; fork from a turn; expand a topic.

import type { Turn } from '@agent-ledger/core';
import type { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { readJsonBody, readQuery } from '../request-input.ts';
import { contextQuery, forkBody, sessionViewQuery } from '../request-schemas.ts';
import type { RouteContext } from './route-context.ts';

export function turnRoutes(app: Hono, { ledger }: RouteContext): void {
  app.get('/v1/turns/:id', async (context) => context.json(await ledger.getTurn(context.req.param('id'))));

  app.get('/v1/turns/:id/context', async (context) => {
    const query = readQuery(context, contextQuery);
    const built = await ledger.buildContext(context.req.param('id'), {
      budgetTokens: query.budget,
      query: query.query,
      sessionId: query.session,
      full: query.full,
      retrieval: query.retrieval,
    });
    return context.json(built);
  });

  app.get('/v1/turns/:id/history', async (context) => {
    const history = ledger.getFullHistory(context.req.param('id'));
    // The first read throws TURN_NOT_FOUND: take it before the 200 is sent, so a bad id is a 404.
    const first = await history.next();
    context.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    return stream(context, async (output) => {
      output.onAbort(() => {
        void history.return(undefined);
      });
      if (first.done) return;
      let batch = `${JSON.stringify(first.value)}\n`;
      for await (const turn of history as AsyncIterable<Turn>) {
        if (output.aborted) break;
        batch += `${JSON.stringify(turn)}\n`;
        if (batch.length >= 64 * 1024) {
          await output.write(batch);
          batch = '';
        }
      }
      if (batch !== '' && !output.aborted) await output.write(batch);
    });
  });

  app.get('/v1/turns/:id/summarized', async (context) =>
    context.json({ turns: await ledger.getSummarizedTurns(context.req.param('id')) }),
  );

  app.post('/v1/turns/:id/fork', async (context) => {
    const options = await readJsonBody(context, forkBody);
    return context.json(await ledger.forkFrom(context.req.param('id'), options), 201);
  });

  app.get('/v1/turns/:id/topic', async (context) => {
    const { session } = readQuery(context, sessionViewQuery);
    return context.json(await ledger.findTopic(context.req.param('id'), { sessionId: session }));
  });

  app.get('/v1/topics/:id/turns', async (context) => {
    const { session } = readQuery(context, sessionViewQuery);
    return context.json({ turns: await ledger.expandTopic(context.req.param('id'), { sessionId: session }) });
  });
}
