// Runs only the append throughput benchmark: `npx tsx scripts/bench/append-only.ts [--quick]`.
// For profiling the append path without the rest of `pnpm bench`.

import { benchmarkAppendThroughput } from './append-throughput-benchmark.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

const quick = process.argv.includes('--quick');
const directory = createTemporaryDirectory();
try {
  const results = await benchmarkAppendThroughput({
    directory,
    rounds: quick ? 3 : 6,
    singleTurnsPerRound: quick ? 500 : 1000,
    batchesPerRound: quick ? 3 : 5,
  });
  for (const result of results)
    console.log(
      `${result.name}: ${Math.round(result.value)} ${result.unit}, raw ${Math.round(result.baseline ?? 0)} → ${result.ratio?.toFixed(3)}x`,
    );
} finally {
  removeTemporaryDirectory(directory);
}
