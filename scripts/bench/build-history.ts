// Builds a session of N synthetic turns in a fresh SQLite ledger, appending in batches and compacting whenever the ledger asks to, as a runtime would.

import { type AgentsLedger, openAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { LedgerError, type SessionSettings } from '../../packages/core/src/index.ts';
import { leadTextSummarizer } from './lead-text-summarizer.ts';
import { nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

/** A small window, so compaction runs every few dozen turns and long histories hold thousands of compactions. */
export const BENCH_SESSION_SETTINGS: SessionSettings = { contextWindow: 8000, reserveTokens: 1000, keepRecentTokens: 2000 };
/** Turns per appendTurns call: a few exchanges at a time, checking for compaction after each call. */
export const BUILD_BATCH_TURNS = 10;
/** The seed of the bench's histories: every run, and both engines, time the same conversation. */
export const BENCH_HISTORY_SEED = 20260101;
/** Where in the history the deep fork point sits, as a fraction of the turns. */
export const DEEP_TURN_FRACTION = 0.1;
/** The share of the history, at its end, whose cost per turn is reported separately. */
export const TAIL_FRACTION = 0.1;

export interface BuiltHistory {
  ledger: AgentsLedger;
  path: string;
  sessionId: string;
  turns: number;
  headTurnId: string;
  /** A normal turn at DEEP_TURN_FRACTION of the history. */
  deepTurnId: string;
  compactions: number;
  /** Compactions the ledger refused (it wrote nothing); a runtime would carry on. */
  refusedCompactions: number;
  /** Wall time of the whole build (generating the synthetic text is under 1% of it). */
  wallMilliseconds: number;
  /** Wall time per turn over the last TAIL_FRACTION of the turns. */
  tailMillisecondsPerTurn: number;
  /**
   * CPU time (user + system) of this process per turn over the same tail: unlike wall time it is
   * barely moved by other load on the machine, so growth with history size shows through noise.
   */
  tailCpuMillisecondsPerTurn: number;
  /** The process's resident memory at its highest during the build, sampled after every batch. */
  peakRssBytes: number;
}

export interface BuildHistoryOptions {
  path: string;
  turns: number;
  seed: number;
  /** No progress lines (for the warm-up). */
  quiet?: boolean;
}

export async function buildHistory(options: BuildHistoryOptions): Promise<BuiltHistory> {
  const { turns } = options;
  // The lead-text summarizer: the extractive one would spend most of a million-turn build ranking sentences.
  const ledger = openAgentsLedger(options.path, { summarizer: leadTextSummarizer });
  try {
    const session = await ledger.createSession({ label: `bench-${turns}`, settings: BENCH_SESSION_SETTINGS });
    const conversation = createConversationGenerator(options.seed);
    const deepIndex = Math.floor(turns * DEEP_TURN_FRACTION);
    const tailStartIndex = turns - Math.max(1, Math.floor(turns * TAIL_FRACTION));
    const progressStep = Math.max(BUILD_BATCH_TURNS, Math.floor(turns / 10));
    let appended = 0;
    let headTurnId = '';
    let deepTurnId = '';
    let compactions = 0;
    let refusedCompactions = 0;
    const buildStart = nowMilliseconds();
    let tailStart: { appended: number; milliseconds: number; cpu: NodeJS.CpuUsage } | null = null;
    let nextProgress = progressStep;
    let peakRssBytes = process.memoryUsage.rss();
    while (appended < turns) {
      peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
      if (!tailStart && appended >= tailStartIndex) {
        tailStart = { appended, milliseconds: nowMilliseconds(), cpu: process.cpuUsage() };
      }
      const batch = conversation.nextTurns(Math.min(BUILD_BATCH_TURNS, turns - appended));
      const written = await ledger.appendTurns(session.id, batch);
      if (await ledger.shouldCompact(session.id)) {
        try {
          await ledger.compact(session.id, { trigger: 'threshold' });
          compactions += 1;
        } catch (error) {
          if (!LedgerError.isInstance(error)) throw error;
          refusedCompactions += 1;
        }
      }
      if (deepIndex >= appended && deepIndex < appended + written.length) deepTurnId = written[deepIndex - appended]?.id ?? '';
      appended += written.length;
      headTurnId = written.at(-1)?.id ?? headTurnId;
      if (!options.quiet && (appended >= nextProgress || appended === turns)) {
        reportProgress(
          `  built ${appended.toLocaleString('en-US')}/${turns.toLocaleString('en-US')} turns, ` +
            `${compactions} compactions${refusedCompactions > 0 ? ` (${refusedCompactions} refused)` : ''}, ` +
            `${((nowMilliseconds() - buildStart) / 1000).toFixed(1)} s`,
        );
        nextProgress += progressStep;
      }
    }
    const buildEnd = nowMilliseconds();
    const tailCpu = process.cpuUsage(tailStart?.cpu);
    // The head is a compaction when the last batch triggered one: contexts are built from there.
    const finalSession = await ledger.getSession(session.id);
    const tail = tailStart ?? { appended: 0, milliseconds: buildStart };
    const tailTurns = Math.max(1, turns - tail.appended);
    return {
      ledger,
      path: options.path,
      sessionId: session.id,
      turns,
      headTurnId: finalSession.headTurnId ?? headTurnId,
      deepTurnId,
      compactions,
      refusedCompactions,
      wallMilliseconds: buildEnd - buildStart,
      tailMillisecondsPerTurn: (buildEnd - tail.milliseconds) / tailTurns,
      tailCpuMillisecondsPerTurn: (tailCpu.user + tailCpu.system) / 1000 / tailTurns,
      peakRssBytes: Math.max(peakRssBytes, process.memoryUsage.rss()),
    };
  } catch (error) {
    ledger.close();
    throw error;
  }
}
