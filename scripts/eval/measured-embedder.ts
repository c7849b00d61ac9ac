// The evaluation's embedder: the chosen one wrapped so every text is embedded once per run (each
// conversation is imported into several ledgers, one per strategy and budget, and each asks for
// its turns' vectors), optionally kept on disk across runs (vector-cache.ts), and counted, so the
// report can say what embedding cost and whether the embedder ever failed (the ledger falls back to
// bm25 alone, silently, when it does: a failed embedder must not pass for a measured one).

import { createHash } from 'node:crypto';
import type { Embedder } from '../../packages/core/src/index.ts';
import { nowMilliseconds } from '../bench/measure.ts';
import type { VectorCache } from './vector-cache.ts';

/** What embedding cost over the run. */
export interface EmbeddingUsage {
  /** Texts the ledgers and rankers asked for (turns and questions, repeats included). */
  requested: number;
  /** Texts the model embedded: each distinct text once, unless the disk cache had it. */
  embedded: number;
  /** Texts answered from the disk cache of an earlier run. */
  fromDisk: number;
  /** Calls to the model that threw (the ledger recalled by bm25 alone for those contexts). */
  failures: number;
  /** Seconds spent in the model's calls. */
  seconds: number;
}

export interface MeasuredEmbedder extends Embedder {
  usage(): EmbeddingUsage;
}

export interface MeasuredEmbedderOptions {
  embedder: Embedder;
  /** Vectors of earlier runs, read and added to; none: memory only. */
  cache?: VectorCache;
}

/** The key of a text's vector: the model and the text, hashed (texts run to thousands of characters). */
export function vectorKey(model: string, text: string): string {
  return createHash('sha256').update(model).update('\u0000').update(text).digest('hex');
}

export function createMeasuredEmbedder({ embedder, cache }: MeasuredEmbedderOptions): MeasuredEmbedder {
  // Float32, as the ledger stores them: half the memory of number[], and nothing the ledger would see is lost.
  const vectors = new Map<string, Float32Array>();
  const usage: EmbeddingUsage = { requested: 0, embedded: 0, fromDisk: 0, failures: 0, seconds: 0 };
  const lookUp = (key: string): Float32Array | undefined => {
    const known = vectors.get(key);
    if (known) return known;
    const stored = cache?.get(key);
    if (stored) {
      usage.fromDisk += 1;
      vectors.set(key, stored);
    }
    return stored;
  };
  return {
    model: embedder.model,
    async embed(texts) {
      usage.requested += texts.length;
      const keys = texts.map((text) => vectorKey(embedder.model, text));
      const missing = new Map<string, string>();
      for (const [index, key] of keys.entries()) {
        if (!missing.has(key) && !lookUp(key)) missing.set(key, texts[index] as string);
      }
      if (missing.size > 0) await embedMissing(embedder, { missing, vectors, usage, cache });
      return keys.map((key) => Array.from(vectors.get(key) as Float32Array));
    },
    usage: () => ({ ...usage }),
  };
}

interface MissingWork {
  missing: ReadonlyMap<string, string>;
  vectors: Map<string, Float32Array>;
  usage: EmbeddingUsage;
  cache: VectorCache | undefined;
}

async function embedMissing(embedder: Embedder, { missing, vectors, usage, cache }: MissingWork): Promise<void> {
  const started = nowMilliseconds();
  let answer: number[][];
  try {
    answer = await embedder.embed([...missing.values()]);
  } catch (error) {
    usage.failures += 1;
    throw error;
  } finally {
    usage.seconds += (nowMilliseconds() - started) / 1000;
  }
  if (!Array.isArray(answer) || answer.length !== missing.size) {
    usage.failures += 1;
    throw new Error(
      `Embedder ${JSON.stringify(embedder.model)} returned ${Array.isArray(answer) ? answer.length : 'no'} vectors for ${missing.size} texts.`,
    );
  }
  const fresh: Array<[string, Float32Array]> = [...missing.keys()].map((key, index) => [
    key,
    Float32Array.from(answer[index] ?? []),
  ]);
  for (const [key, vector] of fresh) vectors.set(key, vector);
  usage.embedded += fresh.length;
  cache?.add(fresh);
}
