// Embeddings in `pnpm bench` (docs/benchmarks.md, "Embeddings: cost"): what an embedder costs the
// append and the context (embedding-cost-benchmark.ts), and nearest turns at 10k and 100k stored
// vectors, sqlite-vec against the exact scan (nearest-turns-benchmark.ts).

import type { BenchStorage } from './bench-storage.ts';
import { benchmarkEmbeddingCost } from './embedding-cost-benchmark.ts';
import { benchmarkNearestTurns } from './nearest-turns-benchmark.ts';
import type { BenchResult } from './report.ts';

export async function benchmarkEmbeddings({ storage, quick }: { storage: BenchStorage; quick: boolean }): Promise<BenchResult[]> {
  return [
    ...(await benchmarkEmbeddingCost({ storage, appendTurns: quick ? 20 : 100, contextTurns: quick ? 100 : 500 })),
    ...(await benchmarkNearestTurns({ storage, sizes: quick ? [2_000] : [10_000, 100_000], queries: quick ? 5 : 20 })),
  ];
}
