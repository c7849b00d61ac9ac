// A strategy written outside the ledger, through its public entry only, runs the same contract as
// the built-in ones: the seam needs no change for a third strategy. This one keeps two summaries,
// what the person asked and what the assistant did, one summarizer call each, and renders them under
// a header of its own.

import { contentText, type NormalTurn } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import {
  type CompactionInput,
  type CompactionPlan,
  type CompactionStrategy,
  createAgentsLedger,
  requireCut,
  STRATEGY_CONTRACT_VERSION,
} from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import { openTempLedger } from './builders.ts';
import { runStrategyContract } from './strategy-contract.ts';

const ASKED = 'Asked:';
const DONE = 'Done:';

function createAskedAndDoneStrategy(): CompactionStrategy {
  return {
    name: 'asked-and-done',
    contractVersion: STRATEGY_CONTRACT_VERSION,
    async plan(input: CompactionInput): Promise<CompactionPlan> {
      const { toSummarize, toKeep, last } = requireCut(input);
      const previous = input.previous ? splitSummary(input.previous.summary) : { asked: undefined, done: undefined };
      const half = Math.max(32, Math.floor(input.summaryTokens / 2) - 8);
      const asked = await summarizeSide(input, {
        turns: toSummarize.filter((turn) => turn.role === 'user'),
        previous: previous.asked,
        target: half,
      });
      const done = await summarizeSide(input, {
        turns: toSummarize.filter((turn) => turn.role === 'assistant'),
        previous: previous.done,
        target: half,
      });
      return {
        summary: `${ASKED}\n${asked.text}\n${DONE}\n${done.text}`,
        summarizedThroughTurnId: last.id,
        firstKeptTurnId: toKeep[0]?.id ?? null,
        summarizer: input.summarizer.name,
        usage: {
          inputTokens: asked.usage.inputTokens + done.usage.inputTokens,
          outputTokens: asked.usage.outputTokens + done.usage.outputTokens,
        },
        summarizerCalls: 2,
      };
    },
    renderSummary: (compaction) =>
      `What was asked and what was done before turn ${compaction.summarizedThroughTurnId} (compaction ${compaction.id}):\n${compaction.summary}`,
  };
}

async function summarizeSide(
  input: CompactionInput,
  side: { turns: readonly NormalTurn[]; previous: string | undefined; target: number },
) {
  return input.summarizer.summarize({
    targetTokens: side.target,
    previousSummary: side.previous,
    turns: side.turns.map((turn) => ({
      id: turn.id,
      role: turn.role,
      text: contentText(turn.content),
      timestamp: turn.timestamp,
    })),
    instructions: input.instructions,
  });
}

function splitSummary(summary: string): { asked: string | undefined; done: string | undefined } {
  const at = summary.indexOf(`\n${DONE}\n`);
  if (!summary.startsWith(ASKED) || at < 0) return { asked: summary, done: undefined };
  return { asked: summary.slice(ASKED.length + 1, at), done: summary.slice(at + DONE.length + 2) };
}

runStrategyContract({ create: createAskedAndDoneStrategy, summarizerCallsPerCompaction: 2 });

describe('the strategy contract version', () => {
  it('a ledger refuses a strategy written for another version of the contract, naming both', () => {
    const temp = openTempLedger();
    try {
      const stale = { ...createAskedAndDoneStrategy(), contractVersion: STRATEGY_CONTRACT_VERSION + 1 };
      expect(() => createAgentsLedger({ store: storeOf(temp.ledger), strategies: [stale] })).toThrow(
        expect.objectContaining({
          code: 'INVALID_INPUT',
          field: 'strategies',
          message: expect.stringContaining('"asked-and-done"'),
        }),
      );
    } finally {
      temp.cleanup();
    }
  });
});
