// Recall reads its matches' neighbours in one store call (chainRanges), whatever the number of
// matches or how far apart they lie: a chainPage per cluster of matches was one PostgreSQL round
// trip each (20 for a common word on a 10k-turn history), and the rows of the matches are read once
// for the whole ranking (speakers, neighbours), not once per step.

import { openLedgerStore } from '@agent-ledger/store';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentsLedger, createAgentsLedger } from '../src/index.ts';
import { type EngineLedger, engines, openEngineLedger, prose } from './builders.ts';
import { countingStore } from './counting-store.ts';

/**
 * `exchanges` user/assistant pairs; every fifth user turn mentions the quokka (far apart: each
 * match a cluster of its own), and the reply after it holds the fact a question would want.
 */
async function spreadMatches(ledger: AgentsLedger, sessionId: string, exchanges: number, from: number): Promise<void> {
  const turns = [];
  for (let index = from; index < from + exchanges; index += 1) {
    const mentions = index % 5 === 0;
    turns.push({ role: 'user' as const, content: mentions ? `where did the quokka go on trip ${index}?` : prose(12, index) });
    turns.push({ role: 'assistant' as const, content: mentions ? `it went to island-${index} by ferry` : prose(12, index + 7) });
  }
  await ledger.appendTurns(sessionId, turns);
}

for (const { engine, title, skip } of engines()) {
  describe.skipIf(skip)(`recall's reads, ${title}`, () => {
    let opened: EngineLedger | undefined;
    afterEach(async () => {
      await opened?.cleanup();
    });

    it('reads the neighbours of 20 and of 80 matches in one store call, and brings the reply after a match', async () => {
      opened = await openEngineLedger(engine, {}, 'recall-calls');
      const { ledger, location } = opened;
      // No compaction: the line is one segment of raw turns.
      const session = await ledger.createSession({
        settings: { contextWindow: 1_000_000, reserveTokens: 1_000, keepRecentTokens: 500 },
      });
      const counted: Array<Record<string, number>> = [];
      for (const [from, exchanges] of [
        [0, 100],
        [100, 300],
      ] as const) {
        await spreadMatches(ledger, session.id, exchanges, from);
        const head = (await ledger.getSession(session.id)).headTurnId as string;
        const calls = new Map<string, number>();
        const store = openLedgerStore(location);
        try {
          const cold = createAgentsLedger({ store: countingStore(store, calls) as typeof store });
          const options = { budgetTokens: 4_000, query: 'where did the quokka go', retrieval: true };
          const context = await cold.buildContext(head, options);
          counted.push(Object.fromEntries(calls));
          // The oldest matches were recalled; with 20 of them, the reply beside each too (80 fill the
          // budget with matches, worth more than a neighbour).
          const recalled = context.system;
          for (let index = 0; index < 50; index += 5) {
            expect(recalled).toContain(`trip ${index}?`);
            if (from === 0) expect(recalled).toContain(`island-${index} by ferry`);
          }
          expect(context).toEqual(await ledger.buildContext(head, options));
        } finally {
          await store.close();
        }
      }
      // The same calls at 20 matches as at 80, and one neighbour read for all of them (the line's
      // own reads, lineStart and what follows it for the recent turns, are context-store-calls.test.ts's).
      const recallCalls = (calls: Record<string, number> | undefined) => ({
        searchTurns: calls?.searchTurns,
        getTurns: calls?.getTurns,
        chainRanges: calls?.chainRanges,
        chainPage: calls?.chainPage ?? 0,
      });
      expect(recallCalls(counted[1])).toEqual({ searchTurns: 1, getTurns: 1, chainRanges: 1, chainPage: 0 });
      expect(recallCalls(counted[0])).toEqual(recallCalls(counted[1]));
    });
  });
}
