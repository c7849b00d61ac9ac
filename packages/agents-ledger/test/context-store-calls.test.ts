// buildContext reads the line in one store call (lineStart: the turn, its compaction and first kept
// turn, the session, the newest turns and the events they cite) whatever the history's length, on
// both engines: on PostgreSQL that is one round trip where it was four (turnWithCompaction,
// getSession, chainPage, eventIdsByTurn).

import { openLedgerStore } from '@agent-ledger/store';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentsLedger, createAgentsLedger } from '../src/index.ts';
import { appendConversation, type EngineLedger, engines, openEngineLedger, SMALL_SETTINGS } from './builders.ts';
import { countingStore } from './counting-store.ts';

/** A history of `turns` turns, compacted whenever the ledger asks, ending with a user turn. */
async function grow(ledger: AgentsLedger, sessionId: string, turns: number): Promise<void> {
  for (let written = 0; written < turns; written += 10) {
    await appendConversation(ledger, sessionId, 10, 40, written + 1);
    if (await ledger.shouldCompact(sessionId)) await ledger.compact(sessionId, { trigger: 'threshold' });
  }
}

for (const { engine, title, skip } of engines()) {
  describe.skipIf(skip)(`the line read in one store call, ${title}`, () => {
    let opened: EngineLedger | undefined;
    afterEach(async () => {
      await opened?.cleanup();
    });

    it('builds a context at the head with one store call at 100 and at 400 turns, the context a warm ledger builds', async () => {
      opened = await openEngineLedger(engine, {}, 'line-start');
      const { ledger, location } = opened;
      const session = await ledger.createSession({ settings: SMALL_SETTINGS });
      for (const total of [100, 400]) {
        await grow(ledger, session.id, total - (total === 100 ? 0 : 100));
        const head = (await ledger.getSession(session.id)).headTurnId as string;
        const calls = new Map<string, number>();
        const store = openLedgerStore(location);
        try {
          // A ledger with nothing cached, on a store that counts.
          const cold = createAgentsLedger({ store: countingStore(store, calls) as typeof store });
          for (const options of [{}, { budgetTokens: 600 }]) {
            calls.clear();
            const context = await cold.buildContext(head, options);
            expect(Object.fromEntries(calls)).toEqual({ lineStart: 1 });
            expect(context.compactionTurnId).not.toBeNull();
            // The same context as read by the ledger that wrote the history.
            expect(context).toEqual(await ledger.buildContext(head, options));
          }
        } finally {
          await store.close();
        }
      }
    });
  });
}
