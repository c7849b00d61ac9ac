// The embeddings part of `pnpm bench` on its own: `npx tsx scripts/bench/embeddings.ts [--quick] [--db postgres://…]`.
// Prints the table of append and context costs with an embedder on, and nearest turns at 10k/100k vectors.

import { postgresStorage, sqliteStorage } from './bench-storage.ts';
import { benchmarkEmbeddings } from './embeddings-benchmark.ts';
import { formatTable } from './report.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

const quick = process.argv.includes('--quick');
const database = process.argv.find((argument) => argument.startsWith('postgres'));
const directory = createTemporaryDirectory();
const storage = database ? postgresStorage(database) : sqliteStorage(directory);
try {
  process.stdout.write(`${formatTable(await benchmarkEmbeddings({ storage, quick }))}\n`);
} finally {
  await storage.close();
  removeTemporaryDirectory(directory);
}
