// Vectors kept on disk between evaluation runs (--cache FOLDER): embedding LongMemEval with the
// offline model takes minutes, the same texts every run. One file per model in the folder, one line
// per vector: {"key": sha256 of model and text, "vector": base64 of its float32 bytes}. Appended as
// vectors come, so a run cut short keeps what it embedded; a torn last line is skipped on reading.

import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface VectorCache {
  /** Where the vectors of this model are kept. */
  readonly path: string;
  get(key: string): Float32Array | undefined;
  add(entries: ReadonlyArray<readonly [string, Float32Array]>): void;
}

/** The file of `model`'s vectors in `folder`: the model name made safe for a file name. */
export function vectorCachePath(folder: string, model: string): string {
  return join(folder, `${model.replace(/[^A-Za-z0-9._-]+/g, '_')}.vectors.jsonl`);
}

export function openVectorCache(folder: string, model: string): VectorCache {
  mkdirSync(folder, { recursive: true });
  const path = vectorCachePath(folder, model);
  const vectors = readVectors(path);
  return {
    path,
    get: (key) => vectors.get(key),
    add(entries) {
      if (entries.length === 0) return;
      const lines = entries.map(([key, vector]) => {
        vectors.set(key, vector);
        return `${JSON.stringify({ key, vector: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') })}\n`;
      });
      appendFileSync(path, lines.join(''));
    },
  };
}

function readVectors(path: string): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  if (!existsSync(path)) return vectors;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const entry = parseLine(line);
    if (entry) vectors.set(entry.key, entry.vector);
  }
  return vectors;
}

function parseLine(line: string): { key: string; vector: Float32Array } | null {
  if (line.trim() === '') return null;
  try {
    const parsed = JSON.parse(line) as { key?: unknown; vector?: unknown };
    if (typeof parsed.key !== 'string' || typeof parsed.vector !== 'string') return null;
    const bytes = Buffer.from(parsed.vector, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return null;
    // Copied into a fresh, aligned buffer: a Buffer's own may start at any byte.
    return { key: parsed.key, vector: new Float32Array(new Uint8Array(bytes).buffer) };
  } catch {
    // A line torn by a run cut short: its text is embedded again.
    return null;
  }
}
