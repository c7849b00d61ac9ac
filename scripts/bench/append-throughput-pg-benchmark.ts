// appendTurn throughput on PostgreSQL, one turn per transaction and 1000 per transaction, against raw `pg` inserts of the same
// rows (without and with the ledger's tsvector column and GIN index) in interleaved rounds, each store in a database of its own;
// then appends from 4 concurrent clients (each an openAgentsLedger with its own pool): to 4 sessions, and to 1 session, retrying
// on a head conflict, against 4 raw clients inserting into one table.

import { type AgentsLedger, type AppendTurnInput, openAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { contentText, HeadConflictError, toContentBlocks } from '../../packages/core/src/index.ts';
import { APPEND_BATCHED, APPEND_ONE_PER_TRANSACTION } from './append-throughput-benchmark.ts';
import { BENCH_SESSION_SETTINGS } from './build-history.ts';
import { median, nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import type { BenchDatabases } from './raw-pg-databases.ts';
import { openRawPgTurnStore, type RawPgTurnStore } from './raw-pg-store.ts';
import type { BenchResult } from './report.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

export const CONCURRENT_CLIENTS = 4;
export const APPEND_CONCURRENT_SESSIONS = `appendTurn, ${CONCURRENT_CLIENTS} clients, 1 session each`;
export const APPEND_CONCURRENT_ONE_SESSION = `appendTurn, ${CONCURRENT_CLIENTS} clients, 1 shared session (retry on conflict)`;

const BATCH_TURNS = 1000;

export interface PgAppendThroughputOptions {
  databases: BenchDatabases;
  /** Measured rounds; one more runs first as warm-up. */
  rounds: number;
  singleTurnsPerRound: number;
  batchesPerRound: number;
  /** Turns each concurrent client appends per round. */
  concurrentTurnsPerClient: number;
}

async function turnsPerSecond(turns: number, operation: () => Promise<unknown>): Promise<number> {
  const start = nowMilliseconds();
  await operation();
  return (turns / (nowMilliseconds() - start)) * 1000;
}

/** appendTurn, going again after the head moved under it (appendTurn already retries a few times itself). */
async function appendRetrying(ledger: AgentsLedger, sessionId: string, input: AppendTurnInput): Promise<number> {
  for (let conflicts = 0; ; conflicts += 1) {
    try {
      await ledger.appendTurn(sessionId, input);
      return conflicts;
    } catch (error) {
      if (!HeadConflictError.isInstance(error) || conflicts > 100) throw error;
    }
  }
}

export async function benchmarkPgAppendThroughput(options: PgAppendThroughputOptions): Promise<BenchResult[]> {
  const { databases } = options;
  const inputs: AppendTurnInput[] = createConversationGenerator(7).nextTurns(BATCH_TURNS);
  const input = (index: number) => inputs[index % inputs.length] as AppendTurnInput;
  // Concurrent clients interleave their turns in the shared session: plain text, so no tool result lands after another's call.
  const textInputs: AppendTurnInput[] = inputs.map((turn, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: contentText(toContentBlocks(turn.content)) || `turn ${index}`,
  }));
  const textInput = (index: number) => textInputs[index % textInputs.length] as AppendTurnInput;
  const batch = (round: number, index: number) => {
    const offset = (round * 7 + index * 131) % inputs.length;
    return [...inputs.slice(offset), ...inputs.slice(0, offset)];
  };
  const ledgers: AgentsLedger[] = [];
  const raws: RawPgTurnStore[] = [];
  const openLedger = async (url: string) => {
    const ledger = openAgentsLedger(url);
    ledgers.push(ledger);
    return ledger;
  };
  const openRaw = async (url: string, fullText = false) => {
    const raw = await openRawPgTurnStore(url, { fullText });
    raws.push(raw);
    return raw;
  };
  try {
    const ledgerForSingles = await openLedger(await databases.create('append_ledger_single'));
    const ledgerForBatches = await openLedger(await databases.create('append_ledger_batched'));
    const raw = {
      single: await openRaw(await databases.create('append_raw_single')),
      batched: await openRaw(await databases.create('append_raw_batched')),
    };
    const rawFts = {
      single: await openRaw(await databases.create('append_raw_fts_single'), true),
      batched: await openRaw(await databases.create('append_raw_fts_batched'), true),
    };
    // The concurrent clients: 4 ledgers (4 pools) on one database, 4 raw connections on another.
    const concurrentUrl = await databases.create('append_ledger_concurrent');
    const concurrentLedgers: AgentsLedger[] = [];
    for (let client = 0; client < CONCURRENT_CLIENTS; client += 1) concurrentLedgers.push(await openLedger(concurrentUrl));
    const ownSessions: string[] = [];
    for (const ledger of concurrentLedgers)
      ownSessions.push((await ledger.createSession({ settings: BENCH_SESSION_SETTINGS })).id);
    const sharedSession = (await concurrentLedgers[0]?.createSession({ settings: BENCH_SESSION_SETTINGS }))?.id ?? '';
    const rawConcurrentUrl = await databases.create('append_raw_concurrent');
    const rawClients: RawPgTurnStore[] = [];
    for (let client = 0; client < CONCURRENT_CLIENTS; client += 1) rawClients.push(await openRaw(rawConcurrentUrl, true));

    const singleSession = await ledgerForSingles.createSession({ settings: BENCH_SESSION_SETTINGS });
    const batchSession = await ledgerForBatches.createSession({ settings: BENCH_SESSION_SETTINGS });
    const singleTurns = options.singleTurnsPerRound;
    const batchedTurns = options.batchesPerRound * BATCH_TURNS;
    const perClient = options.concurrentTurnsPerClient;
    const concurrentTurns = perClient * CONCURRENT_CLIENTS;
    let sharedConflicts = 0;
    const oneByOne = async (
      append: (input: AppendTurnInput) => Promise<unknown>,
      turns: number,
      inputAt: (index: number) => AppendTurnInput = input,
    ) => {
      for (let index = 0; index < turns; index += 1) await append(inputAt(index));
    };
    const contenders = (round: number) => ({
      ledgerSingle: () =>
        turnsPerSecond(singleTurns, () => oneByOne((turn) => ledgerForSingles.appendTurn(singleSession.id, turn), singleTurns)),
      rawSingle: () => turnsPerSecond(singleTurns, () => oneByOne((turn) => raw.single.appendOne(turn), singleTurns)),
      rawFtsSingle: () => turnsPerSecond(singleTurns, () => oneByOne((turn) => rawFts.single.appendOne(turn), singleTurns)),
      ledgerBatched: () =>
        turnsPerSecond(batchedTurns, async () => {
          for (let index = 0; index < options.batchesPerRound; index += 1)
            await ledgerForBatches.appendTurns(batchSession.id, batch(round, index));
        }),
      rawBatched: () =>
        turnsPerSecond(batchedTurns, async () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) await raw.batched.appendMany(batch(round, index));
        }),
      rawFtsBatched: () =>
        turnsPerSecond(batchedTurns, async () => {
          for (let index = 0; index < options.batchesPerRound; index += 1) await rawFts.batched.appendMany(batch(round, index));
        }),
      ledgerConcurrentSessions: () =>
        turnsPerSecond(concurrentTurns, () =>
          Promise.all(
            concurrentLedgers.map((ledger, client) =>
              oneByOne((turn) => ledger.appendTurn(ownSessions[client] as string, turn), perClient, textInput),
            ),
          ),
        ),
      ledgerConcurrentShared: () =>
        turnsPerSecond(concurrentTurns, () =>
          Promise.all(
            concurrentLedgers.map((ledger) =>
              oneByOne(
                async (turn) => {
                  sharedConflicts += await appendRetrying(ledger, sharedSession, turn);
                },
                perClient,
                textInput,
              ),
            ),
          ),
        ),
      rawConcurrent: () =>
        turnsPerSecond(concurrentTurns, () =>
          Promise.all(rawClients.map((client) => oneByOne((turn) => client.appendOne(turn), perClient, textInput))),
        ),
    });
    type Name = keyof ReturnType<typeof contenders>;
    const rates = new Map<Name, number[]>();
    for (let round = 0; round <= options.rounds; round += 1) {
      const warmup = round === 0;
      const runs = contenders(round);
      const measured = new Map<Name, number>();
      for (const group of [
        ['ledgerSingle', 'rawSingle', 'rawFtsSingle'],
        ['ledgerBatched', 'rawBatched', 'rawFtsBatched'],
        ['ledgerConcurrentSessions', 'ledgerConcurrentShared', 'rawConcurrent'],
      ] as Name[][]) {
        const order = group.map((_, index) => group[(index + round) % group.length] as Name);
        for (const name of order) measured.set(name, await runs[name]());
      }
      const rate = (name: Name) => Math.round(measured.get(name) ?? 0);
      reportProgress(
        `  append round ${warmup ? 'warm-up' : `${round}/${options.rounds}`}: one per transaction ledger ${rate('ledgerSingle')} ` +
          `raw ${rate('rawSingle')} raw+tsvector ${rate('rawFtsSingle')}; batched ledger ${rate('ledgerBatched')} ` +
          `raw ${rate('rawBatched')} raw+tsvector ${rate('rawFtsBatched')}; ${CONCURRENT_CLIENTS} clients: ` +
          `4 sessions ${rate('ledgerConcurrentSessions')}, 1 session ${rate('ledgerConcurrentShared')}, ` +
          `raw+tsvector ${rate('rawConcurrent')} turns/s`,
      );
      if (warmup) continue;
      for (const [name, value] of measured) rates.set(name, [...(rates.get(name) ?? []), value]);
    }
    // Untimed: the shared session is one chain holding every turn appended to it, none lost or doubled.
    const shared = await concurrentLedgers[0]?.getSession(sharedSession);
    const head = shared?.headTurnId ? await concurrentLedgers[0]?.getTurn(shared.headTurnId) : null;
    const expected = (options.rounds + 1) * concurrentTurns;
    if (!head || head.depth !== expected - 1) {
      throw new Error(`append: the shared session's head is at depth ${head?.depth}, expected ${expected - 1}`);
    }
    reportProgress(`  shared session: ${expected} turns in one chain, ${sharedConflicts} head conflicts retried`);
    const result = (name: string, ledger: Name, baseline: Name): BenchResult => {
      const value = median(rates.get(ledger) ?? []);
      const base = median(rates.get(baseline) ?? []);
      return { name, unit: 'turns/s', value, baseline: base, ratio: value / base };
    };
    return [
      result(APPEND_ONE_PER_TRANSACTION, 'ledgerSingle', 'rawSingle'),
      result(APPEND_BATCHED, 'ledgerBatched', 'rawBatched'),
      result(`${APPEND_ONE_PER_TRANSACTION}, against raw INSERT + tsvector`, 'ledgerSingle', 'rawFtsSingle'),
      result(`${APPEND_BATCHED}, against raw INSERT + tsvector`, 'ledgerBatched', 'rawFtsBatched'),
      result(
        `${APPEND_CONCURRENT_SESSIONS}, against ${CONCURRENT_CLIENTS} raw clients`,
        'ledgerConcurrentSessions',
        'rawConcurrent',
      ),
      result(
        `${APPEND_CONCURRENT_ONE_SESSION}, against ${CONCURRENT_CLIENTS} raw clients`,
        'ledgerConcurrentShared',
        'rawConcurrent',
      ),
    ];
  } finally {
    for (const ledger of ledgers) await ledger.close();
    for (const raw of raws) await raw.close();
  }
}
