// /v1/sessions…: create, list, read, tree, append turns, compact, topics and the live stream.

import type { AppendTurnInput } from '@agent-ledger/agents-ledger';
import type { Hono } from 'hono';
import { readJsonBody, readQuery } from '../request-input.ts';
import { compactBody, createSessionBody, listSessionsQuery, pickAppendTurnsBody } from '../request-schemas.ts';
import { streamSession } from '../session-stream.ts';
import type { RouteContext } from './route-context.ts';

export function sessionRoutes(app: Hono, { ledger, signals, stream, contention }: RouteContext): void {
  app.post('/v1/sessions', async (context) => {
    const input = await readJsonBody(context, createSessionBody);
    return context.json(await ledger.createSession(input), 201);
  });

  app.get('/v1/sessions', async (context) => {
    const { limit = 100, offset = 0 } = readQuery(context, listSessionsQuery);
    const sessions = await ledger.listSessions({ limit, offset });
    // The length of each session's line (its head's depth + 1, inherited and compaction turns
    // included), so a listing can say how long each session is: the heads are read in one query.
    const heads = new Map(
      (await ledger.getTurns(sessions.flatMap((session) => session.headTurnId ?? []))).map((turn) => [turn.id, turn]),
    );
    return context.json({
      sessions: sessions.map((session) => {
        const depth = session.headTurnId ? heads.get(session.headTurnId)?.depth : undefined;
        return { ...session, turnCount: depth === undefined ? 0 : depth + 1 };
      }),
    });
  });

  app.get('/v1/sessions/:id', async (context) => {
    const id = context.req.param('id');
    const session = await ledger.getSession(id);
    return context.json({ ...session, usage: await ledger.contextUsage(id) });
  });

  app.get('/v1/sessions/:id/tree', async (context) => context.json(await ledger.tree(context.req.param('id'))));

  app.post('/v1/sessions/:id/turns', async (context) => {
    const sessionId = context.req.param('id');
    const body = await readJsonBody(context, pickAppendTurnsBody);
    const { expectedHeadTurnId, ...rest } = body;
    const inputs: AppendTurnInput[] = 'turns' in rest ? [...rest.turns] : [rest as AppendTurnInput];
    // The guard belongs to the first turn: the ledger checks each later one against the running head.
    if (expectedHeadTurnId !== undefined) inputs[0] = { ...(inputs[0] as AppendTurnInput), expectedHeadTurnId };
    const turns = await ledger.appendTurns(sessionId, inputs);
    signals.publish({ type: 'head', sessionId, headTurnId: turns.at(-1)?.id ?? null });
    // Written; the answer waits while clients that got a 409 on this session retry (head-contention.ts).
    await contention.settled(sessionId);
    return context.json({ turns, headTurnId: turns.at(-1)?.id ?? null }, 201);
  });

  app.post('/v1/sessions/:id/compact', async (context) => {
    const sessionId = context.req.param('id');
    const options = await readJsonBody(context, compactBody);
    const compaction = await ledger.compact(sessionId, { ...options, trigger: 'manual' });
    signals.publish({ type: 'compaction', sessionId, turnId: compaction.id });
    await contention.settled(sessionId);
    return context.json(compaction, 201);
  });

  app.get('/v1/sessions/:id/topics', async (context) => context.json({ topics: await ledger.topics(context.req.param('id')) }));

  app.get('/v1/sessions/:id/stream', async (context) => {
    const sessionId = context.req.param('id');
    await ledger.getSession(sessionId); // a 404 before the stream opens
    return streamSession(context, sessionId, { ledger, signals, ...stream });
  });
}
