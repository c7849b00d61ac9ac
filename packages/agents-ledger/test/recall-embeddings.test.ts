// Pluggable embeddings: an Embedder the test defines (deterministic: a word-to-concept table), the
// vectors stored in the ledger, cosine ranking fused with bm25 by reciprocal rank fusion.
import type { Embedder } from '@agent-ledger/core';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { reciprocalRankFusion } from '../src/retrieval/turn-vectors.ts';
import { openTempLedger, type TempLedger } from './builders.ts';

/** Words mapped to concepts: "dog" and "beagle" are one concept, which bm25 cannot know. */
const CONCEPTS: Record<string, number> = { dog: 0, puppy: 0, beagle: 0, shoes: 1, sneakers: 1, pottery: 2, bowls: 2, glaze: 2 };
const DIMENSIONS = 4;

function conceptEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    model: 'test-concepts-v1',
    texts,
    async embed(batch) {
      texts.push(...batch);
      return batch.map((text) => {
        const vector = new Array<number>(DIMENSIONS).fill(0);
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          const concept = CONCEPTS[word];
          const slot = concept ?? DIMENSIONS - 1;
          vector[slot] = (vector[slot] ?? 0) + (concept === undefined ? 0.05 : 1);
        }
        return vector;
      });
    },
  };
}

// Filler after the beagle turn keeps it out of the recent turns a 200-token context holds.
const FILLER = Array.from({ length: 12 }, (_, index) => `Status update ${index}: the migration checklist moves along.`);
const CHAT = [
  'Morning! Long week at work again.',
  'I adopted a beagle from the shelter on Saturday.',
  ...FILLER,
  'Did you finish the quarterly report?',
  'Almost, two charts to go.',
  'I started a class downtown, we make bowls.',
  'Send photos when they are out of the kiln.',
  'The report is due on Friday.',
  'Then I will send it Thursday night.',
];

/** What the ledger file holds, read as another program would (tests only). */
function embeddingsIn(file: string, sql: string): unknown[] {
  const raw = openRawSqlite(file, { readonly: true });
  try {
    return raw.prepare(sql).all();
  } finally {
    raw.close();
  }
}

describe('recall with an Embedder', () => {
  let temp: TempLedger;
  afterEach(() => temp?.cleanup());

  async function chat(embedder?: Embedder) {
    temp = openTempLedger(embedder ? { embedder } : {});
    const { ledger } = temp;
    const session = await ledger.createSession();
    const ids: string[] = [];
    for (const [index, text] of CHAT.entries()) {
      ids.push((await ledger.appendTurn(session.id, { role: index % 2 === 0 ? 'user' : 'assistant', content: text })).id);
    }
    return { ledger, ids, head: ids.at(-1) as string };
  }

  it('finds by meaning what shares no word with the question, and stores each vector once', async () => {
    const query = 'What kind of dog did I get?';
    const lexical = await chat();
    const without = await lexical.ledger.buildContext(lexical.head, { budgetTokens: 200, query, retrieval: true });
    expect(without.retrievedTurnIds ?? []).not.toContain(lexical.ids[1]);
    temp.cleanup();

    const embedder = conceptEmbedder();
    const { ledger, ids, head } = await chat(embedder);
    const context = await ledger.buildContext(head, { budgetTokens: 200, query, retrieval: true });
    expect(context.retrievedTurnIds).toContain(ids[1]);
    expect(context.system).toContain('I adopted a beagle from the shelter on Saturday.');
    const stored = embeddingsIn(
      temp.file,
      'SELECT model, dimensions, count(*) AS n FROM turn_embeddings GROUP BY model, dimensions',
    );
    expect(stored).toEqual([{ model: 'test-concepts-v1', dimensions: DIMENSIONS, n: CHAT.length }]);
    // A second context embeds the new question only.
    embedder.texts.length = 0;
    await ledger.buildContext(head, { budgetTokens: 200, query: 'my pottery bowls', retrieval: true });
    expect(embedder.texts).toEqual(['my pottery bowls']);
  });

  it('falls back to bm25 alone when the embedder fails, and refuses vectors of the wrong shape', async () => {
    const failing: Embedder = {
      model: 'down',
      embed: async () => {
        throw new Error('503 from the embedding service');
      },
    };
    const { ledger, head } = await chat(failing);
    const query = 'when is the report due';
    const context = await ledger.buildContext(head, { budgetTokens: 200, query, retrieval: true });
    const reference = await chat();
    expect(context).toEqual(await reference.ledger.buildContext(reference.head, { budgetTokens: 200, query, retrieval: true }));
    temp.cleanup();

    const ragged: Embedder = { model: 'ragged', embed: async (texts) => texts.map((_, index) => new Array(index + 1).fill(1)) };
    const broken = await chat(ragged);
    await expect(broken.ledger.buildContext(broken.head, { budgetTokens: 200, query, retrieval: true })).rejects.toThrow(
      /Embedder "ragged" returned vectors of different lengths/,
    );
  });

  it('is off without an embedder: no vector is written', async () => {
    const { ledger, head } = await chat();
    await ledger.buildContext(head, { budgetTokens: 200, query: 'dog', retrieval: true });
    expect(embeddingsIn(temp.file, 'SELECT count(*) AS n FROM turn_embeddings')).toEqual([{ n: 0 }]);
  });
});

describe('reciprocalRankFusion', () => {
  it('ranks a turn high in both lists first, and scores the best 1 (property)', () => {
    const id = fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f');
    fc.assert(
      fc.property(fc.uniqueArray(id), fc.uniqueArray(id), (left, right) => {
        const fused = reciprocalRankFusion([left, right]);
        expect(new Set(fused.keys())).toEqual(new Set([...left, ...right]));
        if (fused.size > 0) expect(Math.max(...fused.values())).toBe(1);
        for (const [turn, score] of fused) {
          expect(score).toBeGreaterThan(0);
          // In both lists at least as high as in one alone beats being in that one list only.
          const other = [...fused].find(
            ([candidate]) => left.indexOf(candidate) === left.indexOf(turn) && !right.includes(candidate),
          );
          if (other && right.includes(turn) && other[0] !== turn) expect(score).toBeGreaterThan(other[1]);
        }
      }),
    );
    expect(
      [
        ...reciprocalRankFusion([
          ['x', 'y'],
          ['y', 'z'],
        ]).keys(),
      ][0],
    ).toBe('y');
  });
});
