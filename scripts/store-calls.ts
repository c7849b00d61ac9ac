// Counts the store calls each ledger operation makes (issue 27: "a fixed number of store calls"):
// compact, buildContext, the hybrid context and append, on sessions of several lengths, for both
// built-in strategies. A counting wrapper sits between the ledger and a real SQLite store; a call
// inside a transaction counts too. A count that grows with the history is a walk, not a range read.
//   pnpm exec tsx scripts/store-calls.ts [--sizes 200,2000] [--detail: calls by method, on stderr]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type AgentsLedger, createAgentsLedger } from '../packages/agents-ledger/src/index.ts';
import { type LedgerStore, openLedgerStore, type StoreOperations } from '../packages/store/src/index.ts';
import { createSeededRandom } from './bench/seeded-random.ts';
import { proseText } from './bench/synthetic-conversation.ts';
import { formatTextTable } from './bench/text-table.ts';

interface Counter {
  calls: number;
  byMethod: Map<string, number>;
}

/** The store, every method call counted (transactions' handles included). */
function counting<T extends StoreOperations>(store: T, counter: Counter): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'close') return value;
      return (...args: unknown[]) => {
        counter.calls += 1;
        counter.byMethod.set(property, (counter.byMethod.get(property) ?? 0) + 1);
        if (property === 'transaction') {
          const work = args[0] as (tx: StoreOperations) => Promise<unknown>;
          return (value as LedgerStore['transaction']).call(target, (tx) => work(counting(tx, counter)));
        }
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function buildSession(ledger: AgentsLedger, strategy: string, turns: number) {
  const random = createSeededRandom(7);
  const session = await ledger.createSession({
    strategy,
    settings: { contextWindow: 6_000, reserveTokens: 600, keepRecentTokens: 900 },
  });
  for (let index = 0; index < turns; index += 1) {
    const role = index % 2 === 0 ? 'user' : 'assistant';
    await ledger.appendTurn(session.id, { role, content: proseText(random, 30, 50) });
    if (index % 2 === 1 && (await ledger.shouldCompact(session.id))) await ledger.compact(session.id, { trigger: 'threshold' });
  }
  return session;
}

async function measure(strategy: string, turns: number): Promise<string[][]> {
  const folder = mkdtempSync(path.join(tmpdir(), 'store-calls-'));
  const counter: Counter = { calls: 0, byMethod: new Map() };
  const store = counting(openLedgerStore(path.join(folder, 'ledger.db')), counter);
  try {
    const ledger = createAgentsLedger({ store });
    const session = await buildSession(ledger, strategy, turns);
    // A second ledger on the same store: nothing cached from building the session.
    const cold = createAgentsLedger({ store });
    const count = async (work: () => Promise<unknown>) => {
      counter.calls = 0;
      counter.byMethod.clear();
      await work();
      if (values.detail) console.error(strategy, turns, JSON.stringify(Object.fromEntries(counter.byMethod)));
      return counter.calls;
    };
    const head = async () => (await cold.getSession(session.id)).headTurnId as string;
    const rows: Array<[string, number]> = [];
    const at = await head();
    rows.push(['buildContext', await count(() => cold.buildContext(at, { budgetTokens: 4_000 }))]);
    rows.push([
      'hybrid context',
      await count(() =>
        cold.buildContext(at, {
          budgetTokens: 4_000,
          retrieval: true,
          query: 'Why did the deployment fail after the migration?',
        }),
      ),
    ]);
    rows.push([
      'append (one turn)',
      await count(() => cold.appendTurn(session.id, { role: 'user', content: 'One more question.' })),
    ]);
    await cold.appendTurns(
      session.id,
      Array.from({ length: 30 }, (_, index) => ({
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `More ${index} words about the river and the bridge.`,
      })),
    );
    rows.push(['compact', await count(() => cold.compact(session.id))]);
    return rows.map(([operation, calls]) => [strategy, String(turns), operation, String(calls)]);
  } finally {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '200,2000' }, detail: { type: 'boolean', default: false } },
});
const sizes = (values.sizes ?? '').split(',').map(Number);
const table: string[][] = [];
for (const strategy of ['flat', 'union-find']) for (const size of sizes) table.push(...(await measure(strategy, size)));
console.log(formatTextTable(['strategy', 'turns', 'operation', 'store calls'], table, new Set([0, 2])));
