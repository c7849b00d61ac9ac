// On PostgreSQL each round trip to the server costs more than the work it carries, so the hot paths
// are counted in round trips, on the wire: a loopback proxy sits between the ledger and the real
// server and counts the client's Sync and Query messages (each ends one round trip of the extended
// or the simple protocol). A single append (head known) is one round trip, where BEGIN, UPDATE,
// INSERT and COMMIT were four; a context at the head is one, where four reads were four.

import { type StatementProxy, statementProxy } from '@agent-ledger/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentsLedger, openAgentsLedger } from '../src/index.ts';
import { appendConversation, freshLocation, postgresServer, SMALL_SETTINGS } from './builders.ts';

const server = postgresServer();

describe.skipIf(server === null)('round trips to PostgreSQL, counted on the wire', () => {
  let proxy: StatementProxy;
  let ledger: AgentsLedger;

  beforeAll(async () => {
    const { location } = await freshLocation('postgres', 'round_trips');
    proxy = await statementProxy(location);
    ledger = openAgentsLedger(proxy.url);
  });

  afterAll(async () => {
    await ledger?.close();
    await proxy?.close();
  });

  it('appends a turn in one round trip once the head is known, and builds the context at the head in one', async () => {
    const session = await ledger.createSession({ settings: SMALL_SETTINGS });
    await appendConversation(ledger, session.id, 60);
    if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id, { trigger: 'threshold' });
    const first = await ledger.appendTurn(session.id, { role: 'user', content: 'Where were we?' });

    proxy.reset();
    const second = await ledger.appendTurn(session.id, { role: 'assistant', content: 'At the river.' });
    expect(proxy.roundTrips()).toBe(1);
    expect(second.parentTurnId).toBe(first.id);

    proxy.reset();
    const context = await ledger.buildContext(second.id, { budgetTokens: 600 });
    expect(proxy.roundTrips()).toBe(1);
    expect(context.includedTurnIds.at(-1)).toBe(second.id);

    // A writer that planned on a head that moved writes nothing and is told so.
    const stale = ledger.appendTurn(session.id, { role: 'user', content: 'Late.', expectedHeadTurnId: first.id });
    await expect(stale).rejects.toMatchObject({ code: 'HEAD_CONFLICT' });
    expect((await ledger.getSession(session.id)).headTurnId).toBe(second.id);
  });
});
