// recordCompaction writes a compaction made elsewhere (an imported transcript's) with the same
// columns and pointers `compact` writes: doctor finds nothing, contexts start from its summary, the
// turns it stands for are found through it, and a later `compact` builds on it.

import { InvalidInputError, type NormalTurn } from '@agent-ledger/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { renderSummaryBlock } from '../src/index.ts';
import { assistantTurn, fullHistory, openTempLedger, prose, SMALL_SETTINGS, type TempLedger, userTurn } from './builders.ts';

let temp: TempLedger | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
});

async function sessionWith(count: number, seed = 1) {
  temp = openTempLedger();
  const { ledger } = temp;
  const session = await ledger.createSession({ settings: SMALL_SETTINGS });
  const inputs = Array.from({ length: count }, (_, index) =>
    index % 2 === 0 ? userTurn(`${prose(12, seed + index)} marker${index}`) : assistantTurn(prose(10, seed + index)),
  );
  const turns = await ledger.appendTurns(session.id, inputs);
  return { ledger, session, turns };
}

describe('recordCompaction', () => {
  it('writes the given summary and cut as a compaction turn at the head, accounted as compact accounts it', async () => {
    const { ledger, session, turns } = await sessionWith(8);
    const kept = turns[5] as NormalTurn;
    const compaction = await ledger.recordCompaction(session.id, {
      summary: 'Imported summary: the schema was decided.',
      firstKeptTurnId: kept.id,
      summarizer: 'pi',
      trigger: 'threshold',
      timestamp: 1_777_000_000_000,
      metadata: { source: { tokensBefore: 50210 } },
    });
    expect(compaction.summarizedThroughTurnId).toBe(turns[4]?.id);
    expect(compaction.firstKeptTurnId).toBe(kept.id);
    expect(compaction.parentTurnId).toBe(turns.at(-1)?.id);
    expect(compaction.summarizer).toBe('pi');
    expect(compaction.timestamp).toBe(1_777_000_000_000);
    expect(compaction.metadata).toMatchObject({ source: { tokensBefore: 50210 }, compacts: 5, summarizerCalls: 0 });
    expect(compaction.tokenCount).toBe(ledger.tokenCounter.countText(renderSummaryBlock(compaction)));
    const keptTokens = turns.slice(5).reduce((total, turn) => total + turn.tokenCount, 0);
    expect(compaction.tokensAfter).toBe(compaction.tokenCount + keptTokens);
    expect((await ledger.contextUsage(session.id)).contextTokens).toBe(compaction.tokensAfter);
    const context = await ledger.buildContext(compaction.id);
    expect(context.compactionTurnId).toBe(compaction.id);
    expect(context.includedTurnIds).toEqual(turns.slice(5).map((turn) => turn.id));
    expect(context.system).toContain('Imported summary');
    expect((await ledger.getSummarizedTurns(compaction.id)).map((turn) => turn.id)).toEqual(
      turns.slice(0, 5).map((turn) => turn.id),
    );
    expect((await ledger.findCompactionThatSummarized(turns[2]?.id as string))?.id).toBe(compaction.id);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('with only summarizedThroughTurnId at the head, keeps no raw turn; search finds summarized turns through it', async () => {
    const { ledger, session, turns } = await sessionWith(6);
    const compaction = await ledger.recordCompaction(session.id, {
      summary: 'Everything so far.',
      summarizedThroughTurnId: turns.at(-1)?.id as string,
    });
    expect(compaction.firstKeptTurnId).toBeNull();
    expect((await ledger.buildContext(compaction.id)).includedTurnIds).toEqual([]);
    const result = await ledger.search('marker2');
    expect(result.hits[0]?.turnId).toBe(compaction.id);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('refuses pointers outside the window, non-adjacent pointers and a cut that summarizes nothing, writing nothing', async () => {
    const { ledger, session, turns } = await sessionWith(6);
    const first = await ledger.recordCompaction(session.id, { summary: 'one', firstKeptTurnId: turns[3]?.id as string });
    const attempts = [
      { summary: 'x', summarizedThroughTurnId: turns[1]?.id as string }, // already summarized by `first`
      { summary: 'x', firstKeptTurnId: turns[3]?.id as string }, // the first raw turn: nothing to summarize
      { summary: 'x', summarizedThroughTurnId: turns[3]?.id as string, firstKeptTurnId: turns[5]?.id as string },
      { summary: 'x', summarizedThroughTurnId: turns[3]?.id as string, firstKeptTurnId: null },
      { summary: 'x', summarizedThroughTurnId: first.id },
      { summary: 'x' },
    ];
    for (const attempt of attempts) {
      await expect(ledger.recordCompaction(session.id, attempt)).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect((await ledger.getSession(session.id)).headTurnId).toBe(first.id);
    await expect(
      ledger.recordCompaction(session.id, {
        summary: 'x',
        firstKeptTurnId: turns[5]?.id as string,
        expectedHeadTurnId: turns[5]?.id as string,
      }),
    ).rejects.toMatchObject({ code: 'HEAD_CONFLICT' });
  });

  it('any sequence of recorded and summarized compactions keeps every invariant doctor checks (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ turns: fc.integer({ min: 2, max: 6 }), keep: fc.integer({ min: 0, max: 3 }), ours: fc.boolean() }), {
          minLength: 1,
          maxLength: 5,
        }),
        async (rounds) => {
          temp?.cleanup();
          temp = openTempLedger();
          const { ledger } = temp;
          const session = await ledger.createSession({
            settings: { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 40 },
          });
          for (const [roundIndex, round] of rounds.entries()) {
            const seed = roundIndex * 10;
            const appended = await ledger.appendTurns(
              session.id,
              Array.from({ length: round.turns }, (_, index) => (index % 2 ? assistantTurn : userTurn)(prose(30, seed + index))),
            );
            if (round.ours) {
              await ledger.compact(session.id).catch((error) => {
                if (!['NOTHING_TO_COMPACT', 'COMPACTION_WOULD_NOT_SHRINK'].includes(error.code)) throw error;
              });
            } else {
              const kept = appended[Math.max(1, appended.length - round.keep)] ?? null;
              await ledger.recordCompaction(session.id, {
                summary: `recorded in round ${roundIndex}`,
                ...(kept && round.keep > 0
                  ? { firstKeptTurnId: kept.id }
                  : { summarizedThroughTurnId: (appended.at(-1) as NormalTurn).id }),
              });
            }
          }
          expect(await ledger.doctor()).toEqual([]);
          const head = (await ledger.getSession(session.id)).headTurnId as string;
          const history = await fullHistory(ledger, head);
          expect(history.map((turn) => turn.depth)).toEqual(history.map((_, depth) => depth));
          const context = await ledger.buildContext(head);
          expect(context.tokens).toBeGreaterThan(0);
        },
      ),
      { numRuns: 25 },
    );
  });
});
