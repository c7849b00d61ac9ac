// The contract every Summarizer keeps, whoever implements it, run against each one by
// summarizer-contract.test.ts. A compaction strategy sees only the interface, so it may swap one
// summarizer for another only if each keeps what src/summarizer.ts and docs/summarizers.md promise
// of all of them: the text fits `targetTokens` as the summarizer's own counter counts it (exactly
// for the extractive one, clipped to it for a model), `usage` and the `calls` record are whole,
// non-negative and add up, `sources` trace to the text and the turns, the previous summary is
// folded in, nothing to summarize gives nothing, the input is left as it was (a summarizer never
// writes, and the Anthropic one hands the same input to its fallback), and every failure is a
// SummarizerError. What only one summarizer promises (its wording, its prompt) stays in its own tests.

import { estimateTokenCounter, SummarizerError, type TokenCounter } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import type { SummarizableTurn, SummarizeInput, SummarizeResult, Summarizer } from '../src/index.ts';

export interface SummarizerUnderTest {
  /** Makes the summarizer; called once per case. */
  create: () => Summarizer | Promise<Summarizer>;
  /**
   * A summarizer of the same kind whose underlying work fails (its model API answers errors, its
   * token counter throws) with nothing to fall back on: it must reject with a SummarizerError that
   * names it and carries that failure as `cause`.
   */
  createFailing: () => Summarizer | Promise<Summarizer>;
  /** The counter `create`'s summarizer measures `targetTokens` with; the ledger's estimate by default. */
  tokenCounter?: TokenCounter;
  /** True when the summarizer promises that every line of its text starts with the `[turnId]` it came from. */
  citesEveryLine?: boolean;
}

/** Six turns dense with identifiers (about 150 estimated tokens), so any summary has something to keep. */
const TURN_TEXTS = [
  'We move the ledger to Postgres 16 on db-3, port 5432, before the 2024-02-01 launch.',
  'Agreed. The migration script is scripts/migrate-ledger.ts and it needs DATABASE_URL set first.',
  'Schema decision: turns keep parent_turn_id and a depth column for fast ancestor walks.',
  'I ran pnpm db:generate and drizzle wrote drizzle/0007_turn_depth.sql with idx_turns_session_depth.',
  'Alice owns the rollout and the budget is $1,200 a month for db.r6g.large in eu-west-1.',
  'Noted. The rollback restores the nightly snapshot ledger-2024-01-31.tar.zst and repoints DATABASE_URL.',
];
/** A fact only the first turn holds, expected in a folded summary with room to spare. */
const NEW_FACT = 'Postgres 16';

/** A previous summary in the `[id] sentence` form, citing turns before the ones above. */
const PREVIOUS_SUMMARY = [
  '[t_000001] The ledger started on SQLite 3.45 at /var/lib/ledger/ledger.db.',
  '[t_000002] Writes wait on LEDGER_BUSY_TIMEOUT=5000 before they fail.',
].join('\n');
const PREVIOUS_FACTS = ['SQLite 3.45', '/var/lib/ledger/ledger.db', 'LEDGER_BUSY_TIMEOUT=5000'];

/** Room for everything either input holds, in any counter the tests use. */
const ROOMY_TARGET = 2_000;
/** From nothing fits (a one-token summary) to everything fits. */
const TARGETS = [1, 8, 40, 120, ROOMY_TARGET];
const INVALID_TARGETS = [0, -5, Number.NaN, Number.POSITIVE_INFINITY];
const CITED_LINE = /^\[([A-Za-z0-9_-]+)\] \S/;

function turns(): SummarizableTurn[] {
  return TURN_TEXTS.map((text, index) => ({
    id: `t_${String(index + 11).padStart(6, '0')}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    text,
    timestamp: Date.UTC(2024, 0, 2, 3, index),
  }));
}

function plainInput(targetTokens: number): SummarizeInput {
  return { turns: turns(), targetTokens };
}

function foldingInput(targetTokens: number): SummarizeInput {
  return { previousSummary: PREVIOUS_SUMMARY, turns: turns(), targetTokens, instructions: 'keep the database details' };
}

/** The contract's two inputs, for a test file that checks its subject takes the path it is named for. */
export const contractInputs = { plain: plainInput, folding: foldingInput } as const;

/** What a few ordinary calls return, for the cases that check the shape of a result. */
async function sampleResults(summarizer: Summarizer): Promise<Array<{ input: SummarizeInput; result: SummarizeResult }>> {
  const samples: Array<{ input: SummarizeInput; result: SummarizeResult }> = [];
  for (const input of [plainInput(40), plainInput(ROOMY_TARGET), foldingInput(120), foldingInput(ROOMY_TARGET)]) {
    samples.push({ input, result: await summarizer.summarize(input) });
  }
  return samples;
}

const RESOLVED = Symbol('resolved');

/** What `promise` rejected with, or RESOLVED. */
function outcomeOf<T>(promise: Promise<T>): Promise<unknown> {
  return promise.then(
    () => RESOLVED,
    (error: unknown) => error,
  );
}

function expectSummarizerError(error: unknown, summarizerName: string): void {
  expect(error, 'summarize resolved where it should have rejected').not.toBe(RESOLVED);
  expect(SummarizerError.isInstance(error), `expected a SummarizerError, got: ${String(error)}`).toBe(true);
  expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', summarizer: summarizerName });
}

function expectTokenCount(value: unknown, label: string): void {
  expect(Number.isInteger(value), `${label} is ${String(value)}, not a whole number`).toBe(true);
  expect(value as number, label).toBeGreaterThanOrEqual(0);
}

async function namesItself(subject: SummarizerUnderTest): Promise<void> {
  const { name } = await subject.create();
  expect(typeof name).toBe('string');
  expect(name.trim(), "the ledger stores the name as the compaction turn's summarizer").not.toBe('');
}

async function fitsTargetTokens(subject: SummarizerUnderTest): Promise<void> {
  const counter = subject.tokenCounter ?? estimateTokenCounter;
  const summarizer = await subject.create();
  for (const makeInput of [plainInput, foldingInput]) {
    for (const targetTokens of TARGETS) {
      const { text } = await summarizer.summarize(makeInput(targetTokens));
      expect(typeof text).toBe('string');
      expect(counter.countText(text), `${makeInput.name} at targetTokens ${targetTokens}: ${text}`).toBeLessThanOrEqual(
        targetTokens,
      );
    }
  }
}

async function reportsWholeUsage(subject: SummarizerUnderTest): Promise<void> {
  for (const { input, result } of await sampleResults(await subject.create())) {
    const at = `targetTokens ${input.targetTokens}`;
    expectTokenCount(result.usage.inputTokens, `usage.inputTokens (${at})`);
    expectTokenCount(result.usage.outputTokens, `usage.outputTokens (${at})`);
  }
}

async function namesItsWriter(subject: SummarizerUnderTest): Promise<void> {
  for (const { result } of await sampleResults(await subject.create())) {
    if (result.writtenBy === undefined) continue;
    expect(typeof result.writtenBy).toBe('string');
    expect(result.writtenBy.trim(), "writtenBy becomes the compaction turn's summarizer").not.toBe('');
  }
}

async function recordsCallsThatAddUp(subject: SummarizerUnderTest): Promise<void> {
  for (const { result } of await sampleResults(await subject.create())) {
    const { calls } = result;
    if (calls === undefined) continue;
    expect(Array.isArray(calls) && calls.length > 0, 'calls, when given, lists the calls behind the text').toBe(true);
    for (const call of calls) {
      expect(typeof call.summarizer === 'string' && call.summarizer.trim() !== '', 'call.summarizer').toBe(true);
      if (call.model !== undefined) expect(typeof call.model).toBe('string');
      if (call.rejected !== undefined) expect(typeof call.rejected === 'string' && call.rejected !== '').toBe(true);
      expectTokenCount(call.inputTokens, 'call.inputTokens');
      expectTokenCount(call.outputTokens, 'call.outputTokens');
    }
    // The text came from some call, and usage is everything spent, rejected calls included.
    expect(
      calls.some((call) => call.rejected === undefined),
      'no call wrote the text',
    ).toBe(true);
    expect(result.usage).toEqual({
      inputTokens: calls.reduce((total, call) => total + call.inputTokens, 0),
      outputTokens: calls.reduce((total, call) => total + call.outputTokens, 0),
    });
  }
}

async function tracesSources(subject: SummarizerUnderTest): Promise<void> {
  const summarizer = await subject.create();
  for (const input of [plainInput(40), plainInput(ROOMY_TARGET)]) {
    const { text, sources } = await summarizer.summarize(input);
    if (sources === undefined) continue;
    const turnIds = new Set(input.turns.map((turn) => turn.id));
    for (const source of sources) {
      expect(turnIds, `source ${JSON.stringify(source)} names no turn of the input`).toContain(source.turnId);
      expect(source.text.trim(), 'a source is a kept sentence').not.toBe('');
      expect(text, `source ${JSON.stringify(source)} is not in the text`).toContain(source.text);
    }
  }
}

async function foldsPreviousSummary(subject: SummarizerUnderTest): Promise<void> {
  const summarizer = await subject.create();
  const withTurns = await summarizer.summarize(foldingInput(ROOMY_TARGET));
  for (const fact of [...PREVIOUS_FACTS, NEW_FACT]) expect(withTurns.text).toContain(fact);

  const withoutTurns = await summarizer.summarize({ previousSummary: PREVIOUS_SUMMARY, turns: [], targetTokens: ROOMY_TARGET });
  for (const fact of PREVIOUS_FACTS) expect(withoutTurns.text).toContain(fact);
}

async function writesNothingFromNothing(subject: SummarizerUnderTest): Promise<void> {
  const summarizer = await subject.create();
  let result: SummarizeResult;
  try {
    result = await summarizer.summarize({ turns: [], targetTokens: 200 });
  } catch (error) {
    // It may refuse to summarize nothing; what it must not do is invent a summary.
    expectSummarizerError(error, summarizer.name);
    return;
  }
  expect(result.text.trim()).toBe('');
  expectTokenCount(result.usage.inputTokens, 'usage.inputTokens');
  expectTokenCount(result.usage.outputTokens, 'usage.outputTokens');
}

async function leavesInputAlone(subject: SummarizerUnderTest): Promise<void> {
  const summarizer = await subject.create();
  for (const input of [plainInput(40), foldingInput(ROOMY_TARGET)]) {
    const before = structuredClone(input);
    await summarizer.summarize(input);
    expect(input).toEqual(before);
  }
}

async function rejectsInvalidTargets(subject: SummarizerUnderTest): Promise<void> {
  const summarizer = await subject.create();
  for (const targetTokens of INVALID_TARGETS) {
    expectSummarizerError(await outcomeOf(summarizer.summarize(plainInput(targetTokens))), summarizer.name);
  }
}

async function failsAsSummarizerError(subject: SummarizerUnderTest): Promise<void> {
  const failing = await subject.createFailing();
  const error = await outcomeOf(failing.summarize(foldingInput(120)));
  expectSummarizerError(error, failing.name);
  expect((error as SummarizerError).cause, 'the underlying failure is the cause').toBeInstanceOf(Error);
}

async function citesEveryLine(subject: SummarizerUnderTest): Promise<void> {
  const summarizer = await subject.create();
  for (const input of [plainInput(40), plainInput(ROOMY_TARGET)]) {
    const { text } = await summarizer.summarize(input);
    const turnIds = new Set(input.turns.map((turn) => turn.id));
    for (const line of text === '' ? [] : text.split('\n')) {
      const id = line.match(CITED_LINE)?.[1];
      expect(id !== undefined && turnIds.has(id), `line without a turn's [id]: ${line}`).toBe(true);
    }
  }
}

/** Registers the contract's cases for one summarizer, under `describe("<name> keeps the Summarizer contract")`. */
export function summarizerContract(name: string, subject: SummarizerUnderTest): void {
  describe(`${name} keeps the Summarizer contract`, () => {
    it('has a non-empty name', () => namesItself(subject));
    it('resolves with a text no larger than targetTokens, as its token counter counts it', () => fitsTargetTokens(subject));
    it('reports usage as whole, non-negative token counts', () => reportsWholeUsage(subject));
    it('names its writer, when it says one, with a non-empty string', () => namesItsWriter(subject));
    it('records its calls, when it keeps them, as well-formed entries, one of them used, adding up to usage', () =>
      recordsCallsThatAddUp(subject));
    it('traces each source, when it gives them, to a sentence of its text and a turn of its input', () => tracesSources(subject));
    it('folds the previous summary in: its facts survive when there is room, with or without new turns', () =>
      foldsPreviousSummary(subject));
    it('summarizes no turns and no previous summary as an empty text, or rejects with a SummarizerError', () =>
      writesNothingFromNothing(subject));
    it('leaves its input as it was', () => leavesInputAlone(subject));
    it('rejects a targetTokens that is not a positive finite number with a SummarizerError naming it', () =>
      rejectsInvalidTargets(subject));
    it('rejects with a SummarizerError naming it, with the failure as cause, when its work fails', () =>
      failsAsSummarizerError(subject));
    it.runIf(subject.citesEveryLine)('starts every line with the [id] of an input turn, as it promises', () =>
      citesEveryLine(subject),
    );
  });
}
