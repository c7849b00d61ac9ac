// `pnpm eval --embedder` (issue 30): hybrid's ledgers get the embedder, the reference adds the
// vectors and fused rankings, every text is embedded once per run (and once ever with --cache), and
// the report says which embedder ran and what it cost. A small deterministic embedder over
// concepts stands in for a model here; the real offline model runs in offline-embedder-eval.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../packages/core/src/index.ts';
import { ALL_CATEGORIES } from './aggregate.ts';
import { createMeasuredEmbedder } from './measured-embedder.ts';
import type { RankedQuestion } from './reference-run.ts';
import { renderReport } from './report.ts';
import { type EvaluationResult, runEvaluation } from './run-evaluation.ts';
import { openVectorCache } from './vector-cache.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const PARAPHRASE = path.join(here, 'fixtures', 'paraphrase-sessions.json');
const base = { strategies: ['retrieval', 'hybrid'], budgets: [150], modes: ['aware'], summarizer: 'extractive' } as const;

/** Words of one concept share a dimension: "animal" and "beagle" meet, as a model's vectors would. */
const CONCEPTS: ReadonlyArray<readonly string[]> = [
  ['animal', 'animals', 'beagle', 'beagles', 'puppy', 'dog', 'pet'],
  ['house', 'rooms', 'kitchen'],
  ['office', 'work', 'desk', 'report', 'team'],
  ['cook', 'cooked', 'soup', 'bread', 'dinner', 'lentil'],
];

/** Counts each concept's words (a text with none is all zeros: similar to nothing). Records every call. */
function conceptEmbedder(calls: string[][] = []): Embedder {
  return {
    model: 'test:concepts@5',
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((text) => {
        const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
        return [...CONCEPTS.map((concept) => words.filter((word) => concept.includes(word)).length)];
      });
    },
  };
}

describe('the evaluation with an embedder, on a question that shares no word with its evidence', () => {
  let withVectors: EvaluationResult;
  let bm25Only: EvaluationResult;
  const rankings: RankedQuestion[] = [];
  const calls: string[][] = [];
  beforeAll(async () => {
    bm25Only = await runEvaluation({ ...base, data: [PARAPHRASE] });
    withVectors = await runEvaluation({
      ...base,
      data: [PARAPHRASE],
      embedding: { name: 'concepts', embedder: conceptEmbedder(calls) },
      onConversation: (done) => rankings.push(...done.rankings),
    });
  });
  const ranked = (ranker: string, questionId: string) =>
    rankings.find((item) => item.ranker === ranker && item.questionId === questionId);

  it('ranks the evidence first by vectors where bm25 cannot rank it at all', () => {
    expect(ranked('recall', 'q1')).toMatchObject({ sessionFirstHit: null, turnFirstHit: null });
    expect(ranked('vectors', 'q1')).toMatchObject({ sessionFirstHit: 1, turnFirstHit: 1 });
    // bm25 matches nothing, so fused is the vectors' order.
    expect(ranked('fused', 'q1')).toMatchObject({ sessionFirstHit: 1, turnFirstHit: 1 });
    // A question bm25 answers stays answered when fused.
    expect(ranked('recall', 'q2')).toMatchObject({ sessionFirstHit: 1 });
    expect(ranked('fused', 'q2')).toMatchObject({ sessionFirstHit: 1 });
  });

  it('adds the vectors and fused rows beside the bm25 ones, and only with an embedder', () => {
    const all = (result: EvaluationResult) =>
      result.report.ranking.filter((row) => row.category === ALL_CATEGORIES).map((row) => row.ranker);
    expect(all(bm25Only)).toEqual(['retrieval', 'recall']);
    expect(all(withVectors)).toEqual(['retrieval', 'recall', 'vectors', 'fused']);
    const vectors = withVectors.report.ranking.find((row) => row.ranker === 'vectors' && row.category === ALL_CATEGORIES);
    expect(vectors).toMatchObject({ session_n: 2, session_any_5: 1 });
  });

  it("gives the hybrid's ledgers the embedder: its context now keeps the evidence bm25 missed", () => {
    const erOf = (result: EvaluationResult, strategy: string) =>
      result.scores.find((score) => score.strategy === strategy && score.questionId === 'q1')?.erFrac;
    expect(erOf(bm25Only, 'hybrid')).toBe(0);
    expect(erOf(withVectors, 'hybrid')).toBe(1);
    // retrieval stays the bm25 baseline.
    expect(erOf(withVectors, 'retrieval')).toBe(0);
  });

  it('embeds each distinct text once in the run, however many ledgers and questions ask for it', () => {
    const sent = calls.flat();
    expect(new Set(sent).size).toBe(sent.length);
    const usage = withVectors.report.embedding;
    expect(usage).toMatchObject({ embedded: sent.length, fromDisk: 0, failures: 0 });
    // The reference's turns, the hybrid's line and both questions twice (ranking and context): reused.
    expect(usage?.requested).toBeGreaterThan(sent.length);
    expect(withVectors.report.config.embedder).toEqual({ name: 'concepts', model: 'test:concepts@5', cache: null });
    expect(bm25Only.report.embedding).toBeNull();
  });

  it('says in the report which embedder ran and what it cost', () => {
    const text = renderReport(withVectors.report);
    expect(text).toMatch(
      new RegExp(
        `Embedder: concepts \\(test:concepts@5\\): ${calls.flat().length} text\\(s\\) embedded in [0-9.]+ s, 0 read from the cache`,
      ),
    );
    expect(text).toMatch(/\| vectors +\| +2 \| +100\.0% \|/);
    expect(renderReport(bm25Only.report)).toContain('Embedder: none');
  });
});

describe('the measured embedder', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'nexus-vectors-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps vectors on disk so a later run embeds nothing again, and gives the same vectors', async () => {
    const firstCalls: string[][] = [];
    const first = createMeasuredEmbedder({
      embedder: conceptEmbedder(firstCalls),
      cache: openVectorCache(folder, 'test:concepts@5'),
    });
    const vectors = await first.embed(['a beagle at home', 'lentil soup', 'a beagle at home']);
    expect(firstCalls).toEqual([['a beagle at home', 'lentil soup']]);
    const laterCalls: string[][] = [];
    const later = createMeasuredEmbedder({
      embedder: conceptEmbedder(laterCalls),
      cache: openVectorCache(folder, 'test:concepts@5'),
    });
    expect(await later.embed(['lentil soup', 'a beagle at home'])).toEqual([vectors[1], vectors[0]]);
    expect(laterCalls).toEqual([]);
    expect(later.usage()).toMatchObject({ requested: 2, embedded: 0, fromDisk: 2 });
  });

  it('reads past a line torn by a run cut short, and embeds that text again', async () => {
    const cache = openVectorCache(folder, 'test:torn');
    cache.add([['kept', Float32Array.from([1, 2])]]);
    const torn = `${readFileSync(cache.path, 'utf8')}{"key":"cut","vec`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(cache.path, torn);
    const reopened = openVectorCache(folder, 'test:torn');
    expect(Array.from(reopened.get('kept') ?? [])).toEqual([1, 2]);
    expect(reopened.get('cut')).toBeUndefined();
  });

  it('counts a failing call and passes its error on (the ledger then falls back to bm25)', async () => {
    const measured = createMeasuredEmbedder({
      embedder: {
        model: 'test:down',
        embed: async () => {
          throw new Error('connection refused');
        },
      },
    });
    await expect(measured.embed(['anything'])).rejects.toThrow('connection refused');
    await expect(measured.embed(['anything'])).rejects.toThrow('connection refused');
    expect(measured.usage()).toMatchObject({ failures: 2, embedded: 0 });
  });

  it('counts an answer with too few vectors as a failure instead of keeping it', async () => {
    const measured = createMeasuredEmbedder({ embedder: { model: 'test:short', embed: async () => [[1, 0]] } });
    await expect(measured.embed(['one', 'two'])).rejects.toThrow('returned 1 vectors for 2 texts');
    expect(measured.usage()).toMatchObject({ failures: 1, embedded: 0 });
  });
});
