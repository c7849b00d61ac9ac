// Sessions and forks. A fork is copy-on-write: a new session row whose head is the historical
// turn. No turn is copied, so forking costs the same at turn 10 and turn 10 million.

import type { Session, SessionCalibration, SessionSettings } from '@agent-ledger/core';
import type { SessionRecord } from '@agent-ledger/store';
import { calibratedSettings } from './calibrate-session.ts';
import { effectiveCompaction } from './chain-arithmetic.ts';
import { findCompactionThatSummarized } from './history.ts';
import type { LedgerContext } from './ledger-context.ts';
import { requireSessionRow, requireTurnRow } from './store/chain.ts';
import { sessionFromRow } from './store/row-mapping.ts';
import { requireStrategy, validateLabel, validateSettings } from './validate-input.ts';

export interface CreateSessionInput {
  label?: string;
  settings?: Partial<SessionSettings>;
  /** Compaction strategy for this session (`flat`, `union-find`); the ledger's default otherwise. */
  strategy?: string;
}

export async function createSession(ledger: LedgerContext, input: CreateSessionInput = {}): Promise<Session> {
  const settings = validateSettings(input.settings);
  const compactionStrategy = input.strategy === undefined ? null : requireStrategy(ledger, input.strategy).name;
  const row: SessionRecord = {
    id: ledger.generateId('session'),
    label: validateLabel(input.label),
    headTurnId: null,
    parentSessionId: null,
    forkedFromTurnId: null,
    rebuildFromRaw: false,
    ignoreCompactionsThroughDepth: null,
    compactionStrategy,
    calibration: null,
    createdAt: ledger.now(),
    ...settings,
  };
  await ledger.store.insertSession(row);
  return sessionFromRow(row);
}

export async function getSession(ledger: LedgerContext, sessionId: string): Promise<Session> {
  return sessionFromRow(await requireSessionRow(ledger.store, sessionId));
}

export interface ListSessionsOptions {
  limit?: number;
  offset?: number;
}

export async function listSessions(ledger: LedgerContext, options: ListSessionsOptions = {}): Promise<Session[]> {
  const rows = await ledger.store.listSessions({ limit: options.limit ?? 100, offset: options.offset ?? 0 });
  return rows.map(sessionFromRow);
}

export interface ForkOptions {
  /**
   * Rebuild the fork's context from raw turns instead of the compactions it inherits: complete but
   * as expensive as the history is long, until the fork compacts on its own.
   */
  full?: boolean;
  label?: string;
  settings?: Partial<SessionSettings>;
  /** The fork's compaction strategy; the source session's by default. */
  strategy?: string;
}

export interface Fork {
  session: Session;
  /** The compaction whose summary the fork's context starts from (null with `full` or none yet). */
  baseCompactionId: string | null;
  /** The compaction of the source session that had already summarized the fork point, if any. */
  forkPointSummarizedBy: string | null;
}

export async function forkFrom(ledger: LedgerContext, turnId: string, options: ForkOptions): Promise<Fork> {
  const strategy = options.strategy === undefined ? undefined : requireStrategy(ledger, options.strategy).name;
  const row = await ledger.store.transaction(async (tx) => {
    const turn = await requireTurnRow(tx, turnId);
    const source = await requireSessionRow(tx, turn.sessionId);
    const { settings, calibration } = forkSettings(source, options.settings);
    const fork: SessionRecord = {
      id: ledger.generateId('session'),
      label: validateLabel(options.label),
      compactionStrategy: strategy ?? source.compactionStrategy,
      headTurnId: turn.id,
      parentSessionId: turn.sessionId,
      forkedFromTurnId: turn.id,
      rebuildFromRaw: options.full ?? false,
      // A fork sees what its fork point saw: it inherits the source's floor, and `full` raises it.
      ignoreCompactionsThroughDepth: options.full ? turn.depth : source.ignoreCompactionsThroughDepth,
      calibration,
      createdAt: ledger.now(),
      ...settings,
    };
    await tx.insertSession(fork);
    // Each strategy copies what a fork inherits besides its turns (union-find: the dropped topics).
    for (const strategy of ledger.strategies.values())
      await strategy.forked?.(tx, { fromSessionId: source.id, toSessionId: fork.id, at: ledger.now() });
    return { fork, turn };
  });
  return {
    session: sessionFromRow(row.fork),
    baseCompactionId: (await effectiveCompaction(ledger.store, row.turn, row.fork))?.id ?? null,
    forkPointSummarizedBy: (await findCompactionThatSummarized(ledger, row.turn.id))?.id ?? null,
  };
}

/**
 * A fork's settings. What a model API taught the source holds for the fork unless the fork names
 * its own window: other settings given are taken in the user's units and rescaled like the rest.
 */
function forkSettings(
  source: SessionRecord,
  given: Partial<SessionSettings> | undefined,
): { settings: SessionSettings; calibration: SessionCalibration | null } {
  const inherited = source.calibration as SessionCalibration | null;
  if (inherited && given?.contextWindow === undefined) {
    const calibration = { ...inherited, originalSettings: validateSettings(given, inherited.originalSettings) };
    return { settings: calibratedSettings(calibration), calibration };
  }
  const current = {
    contextWindow: source.contextWindow,
    reserveTokens: source.reserveTokens,
    keepRecentTokens: source.keepRecentTokens,
  };
  return { settings: validateSettings(given, inherited && given ? inherited.originalSettings : current), calibration: null };
}

export interface SessionTree {
  session: Session;
  /** Turns the session itself wrote (forks share the rest with their source). */
  ownTurns: number;
  forks: SessionTree[];
}

/** The session and every fork below it, recursively, forks in creation order. */
export async function tree(ledger: LedgerContext, sessionId: string): Promise<SessionTree> {
  const store = ledger.store;
  const root = sessionFromRow(await requireSessionRow(store, sessionId));
  const depthOf = async (turnId: string | null) => (turnId ? (await requireTurnRow(store, turnId)).depth : -1);
  const build = async (session: Session): Promise<SessionTree> => {
    // Own turns are the depths between the fork point and the head: no count over the table.
    const ownTurns = Math.max(0, (await depthOf(session.headTurnId)) - (await depthOf(session.forkedFromTurnId)));
    const forks: SessionTree[] = [];
    for (const row of await store.childSessions(session.id)) forks.push(await build(sessionFromRow(row)));
    return { session, ownTurns, forks };
  };
  return build(root);
}
