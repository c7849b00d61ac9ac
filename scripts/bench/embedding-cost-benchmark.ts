// What embeddings cost the write and the read path, on the bench's engine: appendTurn with
// embedOnAppend (vectors written in the background) against appendTurn with no embedder, both until
// the appends return and until every vector is stored, and appendTurns in batches; and the hybrid
// context at the head of an embedded history with the embedder (the query is embedded, the line's
// nearest turns fused with bm25) against the same context without one. Two embedders, named in
// every row: the offline Universal Sentence Encoder when its optional packages are installed (it
// computes in this process, on the thread the appends run on), and a deterministic one that waits
// a fixed 20 ms a call and computes nothing, as a server would; the context uses the first.

import { type AgentsLedger, createAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import type { Embedder } from '../../packages/core/src/index.ts';
import { createOfflineEmbedder } from '../../packages/embeddings/src/index.ts';
import { openLedgerStore } from '../../packages/store/src/index.ts';
import type { BenchStorage } from './bench-storage.ts';
import { CONTEXT_BUDGET_TOKENS, HYBRID_QUERY } from './build-context-benchmark.ts';
import { latencyResults, nowMilliseconds, sampleInterleaved } from './measure.ts';
import { reportProgress } from './progress.ts';
import type { BenchResult } from './report.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

const SEED = 20261127;
const APPEND_BATCH = 20;
/** Append measurements are split in this many rounds, interleaved across the ways of appending. */
const APPEND_ROUNDS = 5;

export interface EmbeddingCostOptions {
  storage: BenchStorage;
  /** Turns appended per measurement. */
  appendTurns: number;
  /** Turns of the history the context is built on. */
  contextTurns: number;
}

/** The offline encoder when it loads here, else null (its optional packages are not installed). */
async function offlineEmbedder(): Promise<NamedEmbedder | null> {
  const offline = createOfflineEmbedder();
  try {
    await offline.embed(['warm up the encoder']);
    return { embedder: offline, name: 'offline USE-lite 512-d, in this process' };
  } catch {
    return null;
  }
}

interface NamedEmbedder {
  embedder: Embedder;
  name: string;
}

/**
 * A deterministic embedder that costs a fixed 20 ms a call and no CPU, as an embedding server
 * answers over the network: what the append pays when the embedding happens elsewhere.
 */
const serverLikeEmbedder: NamedEmbedder = {
  name: 'deterministic 512-d, a fixed 20 ms a call, as a server',
  embedder: {
    model: 'bench-deterministic@512',
    embed: async (texts) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return texts.map((text) => Array.from({ length: 512 }, (_, index) => Math.sin((text.length + 1) * (index + 1))));
    },
  },
};

export async function benchmarkEmbeddingCost(options: EmbeddingCostOptions): Promise<BenchResult[]> {
  const offline = await offlineEmbedder();
  const embedders = offline ? [offline, serverLikeEmbedder] : [serverLikeEmbedder];
  const ledgers: AgentsLedger[] = [];
  const locations: string[] = [];
  const open = async (label: string, named?: NamedEmbedder) => {
    const location = await options.storage.create(label);
    locations.push(location);
    const ledger = createAgentsLedger({
      store: openLedgerStore(location),
      ...(named ? { embedder: named.embedder, embedOnAppend: true } : {}),
    });
    ledgers.push(ledger);
    return ledger;
  };
  try {
    reportProgress(`append cost with embeddings (${embedders.map((named) => named.name).join('; ')})`);
    const without = await appendRun(await open('append-plain'), 1);
    const runs = [without];
    for (const [index, named] of embedders.entries()) {
      runs.push(await appendRun(await open(`append-single-${index}`, named), 1));
      runs.push(await appendRun(await open(`append-batched-${index}`, named), APPEND_BATCH));
    }
    await appendInterleaved(runs, options.appendTurns);
    const perTurn = (milliseconds: number) => milliseconds / options.appendTurns;
    const row = (label: string, value: number): BenchResult => ({
      name: `${label}; baseline appendTurn, no embedder`,
      unit: 'ms/turn',
      value: perTurn(value),
      baseline: perTurn(without.returned),
      ratio: value / without.returned,
    });
    const results: BenchResult[] = [{ name: 'appendTurn, no embedder', unit: 'ms/turn', value: perTurn(without.returned) }];
    for (const [index, named] of embedders.entries()) {
      const single = runs[1 + 2 * index] as AppendRun;
      const batched = runs[2 + 2 * index] as AppendRun;
      results.push(
        row(`appendTurn, embedOnAppend (${named.name}): until the appends return`, single.returned),
        row(`appendTurn, embedOnAppend (${named.name}): until every vector is stored`, single.stored),
        row(`appendTurns of ${APPEND_BATCH}, embedOnAppend (${named.name}): until every vector is stored`, batched.stored),
      );
    }
    reportProgress(`hybrid context with and without embeddings at ${options.contextTurns} turns`);
    const location = await options.storage.create('context');
    locations.push(location);
    results.push(...(await contextCost(location, { ...(embedders[0] as NamedEmbedder), turns: options.contextTurns })));
    return results;
  } finally {
    for (const ledger of ledgers) await ledger.close();
    for (const location of locations) await options.storage.remove(location);
  }
}

/** One way of appending, timed: milliseconds until the appends returned, and until their vectors were stored. */
interface AppendRun {
  ledger: AgentsLedger;
  sessionId: string;
  batch: number;
  conversation: ReturnType<typeof createConversationGenerator>;
  returned: number;
  stored: number;
}

async function appendRun(ledger: AgentsLedger, batch: number): Promise<AppendRun> {
  const session = await ledger.createSession();
  return { ledger, sessionId: session.id, batch, conversation: createConversationGenerator(SEED), returned: 0, stored: 0 };
}

/** Rounds of turns / APPEND_ROUNDS appends in each run, starting from another run each round (load falls on all alike). */
async function appendInterleaved(runs: readonly AppendRun[], turns: number): Promise<void> {
  const perRound = Math.ceil(turns / APPEND_ROUNDS);
  // Round -1 warms every run up (the JIT, each file's first pages) and is not counted.
  for (let round = -1; round < APPEND_ROUNDS; round += 1) {
    for (let index = 0; index < runs.length; index += 1) {
      const run = runs[(index + Math.max(0, round)) % runs.length] as AppendRun;
      const started = nowMilliseconds();
      for (let done = 0; done < perRound; done += run.batch) {
        const inputs = run.conversation.nextTurns(Math.min(run.batch, perRound - done));
        if (run.batch === 1) await run.ledger.appendTurn(run.sessionId, inputs[0] as (typeof inputs)[number]);
        else await run.ledger.appendTurns(run.sessionId, inputs);
      }
      const returned = nowMilliseconds() - started;
      await run.ledger.flushEmbeddings();
      if (round < 0) continue;
      run.returned += returned;
      run.stored += nowMilliseconds() - started;
    }
  }
}

/**
 * The hybrid context at the head of a history whose turns all have vectors, with the embedder and
 * without (two ledgers over the same store), timed interleaved.
 */
async function contextCost(
  location: string,
  { embedder, name, turns }: { embedder: Embedder; name: string; turns: number },
): Promise<BenchResult[]> {
  const withEmbedder = createAgentsLedger({ store: openLedgerStore(location), embedder, embedOnAppend: true });
  const withoutEmbedder = createAgentsLedger({ store: openLedgerStore(location) });
  try {
    const session = await withEmbedder.createSession();
    const conversation = createConversationGenerator(SEED + 1);
    let head = '';
    for (let done = 0; done < turns; done += APPEND_BATCH)
      head = (await withEmbedder.appendTurns(session.id, conversation.nextTurns(APPEND_BATCH))).at(-1)?.id ?? head;
    await withEmbedder.flushEmbeddings();
    const context = (ledger: AgentsLedger) => () =>
      ledger.buildContext(head, { budgetTokens: CONTEXT_BUDGET_TOKENS, query: HYBRID_QUERY, retrieval: true });
    const withName = `hybrid context at head, budget ${CONTEXT_BUDGET_TOKENS}, with embeddings (${name})`;
    const withoutName = `hybrid context at head, budget ${CONTEXT_BUDGET_TOKENS}, bm25 alone`;
    const latencies = latencyResults(
      await sampleInterleaved(
        [
          { name: withName, size: turns, run: context(withEmbedder) },
          { name: withoutName, size: turns, run: context(withoutEmbedder) },
        ],
        { rounds: 5, iterationsPerRound: 4, warmupIterations: 2 },
      ),
    );
    return latencies.map((result) => {
      if (!result.name.startsWith(withName)) return result;
      const baseline = latencies.find((other) => other.name === result.name.replace(withName, withoutName))?.value ?? Number.NaN;
      return { ...result, name: `${result.name}; baseline bm25 alone`, baseline, ratio: result.value / baseline };
    });
  } finally {
    await withEmbedder.close();
    await withoutEmbedder.close();
  }
}
