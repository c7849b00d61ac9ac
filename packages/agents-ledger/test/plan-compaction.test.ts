// The compaction row planned from arrays, with no ledger and no store: the cut is checked against the
// window, what the summary stands for is counted, and the tokens the turn costs are those of the
// block a context sends (compaction/plan-compaction.ts).

import { estimateTokenCounter } from '@agent-ledger/core';
import type { StoredTurn } from '@agent-ledger/store';
import { turnRecord } from '@agent-ledger/store/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CompactionRowInput, planCompactionRow } from '../src/compaction/plan-compaction.ts';
import { renderSummaryBlock } from '../src/index.ts';

/** Turn t<index> at depth <index>, as the store reads it back. */
function row(index: number, fields: Partial<StoredTurn> = {}): StoredTurn {
  return {
    ...turnRecord(`t${index}`, 's1', null, {
      depth: index,
      parentTurnId: index === 0 ? null : `t${index - 1}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      tokenCount: 10 + index,
      ...fields,
    }),
    hasChildren: false,
  };
}

function input(windowRows: StoredTurn[], through: number, fields: Partial<CompactionRowInput> = {}): CompactionRowInput {
  const kept = windowRows[windowRows.findIndex((candidate) => candidate.id === `t${through}`) + 1];
  return {
    sessionId: 's1',
    id: 'c1',
    head: windowRows.at(-1) as StoredTurn,
    previous: null,
    fromDepth: 0,
    windowRows,
    plan: {
      summary: 'What was said.',
      summarizedThroughTurnId: `t${through}`,
      firstKeptTurnId: kept?.id ?? null,
      summarizer: 'test',
      usage: { inputTokens: 3, outputTokens: 2 },
    },
    strategy: { name: 'flat' },
    summaryTokens: 100,
    trigger: 'threshold',
    timestamp: 5_000,
    tokenCounter: estimateTokenCounter,
    ...fields,
  };
}

describe('planCompactionRow', () => {
  it('counts the turns up to the cut (and the previous compaction) as what the summary stands for', () => {
    const windowRows = [2, 3, 4, 5, 6].map((index) => row(index));
    const previous = row(1, { id: 'c0', turnType: 'compaction', summary: 'Earlier.', firstKeptTurnId: 't2', tokenCount: 7 });
    const planned = planCompactionRow(input(windowRows, 4, { previous, fromDepth: 2 }));
    expect(planned.through.id).toBe('t4');
    expect(planned.firstKept?.id).toBe('t5');
    expect(planned.allowLaterTurns).toBe(true);
    expect(planned.metadata).toMatchObject({ compacts: 4, sourceTokens: 7 + 12 + 13 + 14, windowTurns: 5, summaryTokens: 100 });
    expect(planned.coversFromDepth).toBe(2);
  });

  it('costs the tokens of the block the strategy renders, and keeps the strategy from overriding the ledger fields', () => {
    const windowRows = [0, 1, 2, 3].map((index) => row(index));
    const strategy = { name: 'own', renderSummary: () => 'a much longer rendered block than the plain one would be, by far' };
    const base = input(windowRows, 1, { strategy });
    const planned = planCompactionRow({ ...base, plan: { ...base.plan, metadata: { compacts: 999, topics: ['x'] } } });
    expect(planned.tokenCount).toBe(estimateTokenCounter.countText(strategy.renderSummary()));
    expect(planned.metadata).toMatchObject({ compacts: 2, topics: ['x'] });
    const plain = planCompactionRow(input(windowRows, 1));
    const block = renderSummaryBlock({
      id: 'c1',
      summary: 'What was said.',
      summarizedThroughTurnId: 't1',
      metadata: plain.metadata,
    });
    expect(plain.tokenCount).toBe(estimateTokenCounter.countText(block));
  });

  it('refuses a cut that is not a turn of the window followed by the first kept one, for any window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: -2, max: 14 }),
        fc.integer({ min: -2, max: 14 }),
        (size, through, kept) => {
          const windowRows = Array.from({ length: size }, (_, index) => row(index));
          const base = input(windowRows, 0);
          const plan = {
            ...base.plan,
            summarizedThroughTurnId: `t${through}`,
            firstKeptTurnId: kept >= size ? null : `t${kept}`,
          };
          const valid = through >= 0 && through < size && (kept >= size ? through === size - 1 : kept === through + 1);
          if (valid) expect(planCompactionRow({ ...base, plan }).through.id).toBe(`t${through}`);
          else expect(() => planCompactionRow({ ...base, plan })).toThrow(/cut outside the window/);
        },
      ),
    );
  });
});
