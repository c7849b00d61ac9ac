// Writes one transcript's entries into the ledger, whatever the format: one source session → one
// ledger session, a branch (an entry whose parent is not the newest turn of any of the source's
// sessions) → a fork at that turn, a compaction → recordCompaction with the source's summary and
// cut. Each source line is recorded with the turn that holds it, in the same transaction, so a
// re-run skips what it has and a grown transcript appends only its new lines. Commits every
// COMMIT_EVERY lines: memory stays flat, and an interrupted import resumes where it stopped.

import type { AgentsLedger } from '@nexus/agents-ledger';
import { type CompactionTurn, LedgerError, type SessionSettings } from '@nexus/core';
import type { ImportStore } from './import-store.ts';
import type { CompactionEntry, FormatName, SourceSession, TranscriptEntry, TurnEntry } from './transcript-entry.ts';

const COMMIT_EVERY = 2000;

export interface WriteCounts {
  lines: number;
  turns: number;
  compactions: number;
  forks: number;
  /** Lines already imported by an earlier run. */
  known: number;
}

export interface ImportProblem {
  path: string;
  line: number;
  message: string;
}

export interface WrittenSource {
  key: string;
  sessionId: string;
  /** True when this run created the session (false: an earlier import did). */
  created: boolean;
}

export interface WriteOptions {
  ledger: AgentsLedger;
  store: ImportStore;
  format: FormatName;
  path: string;
  settings?: Partial<SessionSettings>;
  counts: WriteCounts;
  onProblem(problem: ImportProblem): void;
  onProgress?(): void;
}

interface SourceState {
  key: string;
  mainSessionId: string;
  /** Head turn → the source's session whose head it is: where an entry following it goes. */
  heads: Map<string, string>;
  /** Session → its head turn, for the sessions this source writes to. */
  sessionHeads: Map<string, string | null>;
  label: string;
  /** The source a forked transcript was copied from: lines it shares with it are found there. */
  copiedFrom?: string;
}

/** The turn holding a source line (null: known, before any turn), here or in the source it copies. */
function lineTurnOf(state: SourceState, store: ImportStore, lineId: string): string | null | undefined {
  const own = store.lineTurn(state.key, lineId);
  return own !== undefined || !state.copiedFrom ? own : store.lineTurn(state.copiedFrom, lineId);
}

/** Writes the entries of one file; returns the source it wrote to (null for a file with no session). */
export async function writeEntries(
  entries: AsyncIterable<TranscriptEntry>,
  options: WriteOptions,
): Promise<WrittenSource | null> {
  const { store, counts } = options;
  let state: SourceState | null = null;
  let written: WrittenSource | null = null;
  let previousTurnId: string | null = null;
  let sinceCommit = 0;
  store.begin();
  try {
    for await (const entry of entries) {
      if (entry.kind === 'problem') {
        options.onProblem({ path: options.path, line: entry.line, message: entry.message });
        continue;
      }
      if (entry.kind === 'session') {
        const opened = await openSource(entry, options);
        state = opened.state;
        written = { key: entry.key, sessionId: state.mainSessionId, created: opened.created };
        continue;
      }
      if (!state) throw new Error('a transcript format yielded an entry before its session');
      counts.lines += entry.lineIds.length;
      const fresh = freshPart(state, entry, store);
      counts.known += entry.lineIds.length - (fresh?.lineIds.length ?? 0);
      if (fresh) previousTurnId = await writeEntry(state, fresh, previousTurnId, options);
      else previousTurnId = lineTurnOf(state, store, entry.lineIds.at(-1) as string) ?? previousTurnId;
      sinceCommit += entry.lineIds.length;
      if (sinceCommit >= COMMIT_EVERY) {
        store.commit();
        store.begin();
        sinceCommit = 0;
      }
      options.onProgress?.();
    }
    store.commit();
  } catch (error) {
    store.rollback();
    throw error;
  }
  return written;
}

/**
 * The part of an entry an earlier run did not import: all of it, none of it (null), or, for a turn
 * that grew since (a reply whose later blocks were written after the last import), its new lines'
 * blocks as a turn of their own following the old part.
 */
function freshPart<Entry extends Exclude<TranscriptEntry, SourceSession | { kind: 'problem' }>>(
  state: SourceState,
  entry: Entry,
  store: ImportStore,
): Entry | null {
  const known = entry.lineIds.map((lineId) => lineTurnOf(state, store, lineId) !== undefined);
  if (!known.some(Boolean)) return entry;
  if (known.every(Boolean)) return null;
  const lastKnown = known.lastIndexOf(true);
  const lineIds = entry.lineIds.filter((_, index) => !known[index]);
  if (entry.kind !== 'turn' || !entry.blocksByLine) return { ...entry, lineIds, parentLineId: entry.lineIds[lastKnown] };
  const content = entry.blocksByLine.filter((_, index) => !known[index]).flat();
  if (content.length === 0)
    return { ...entry, kind: 'skip', lineIds, parentLineId: entry.lineIds[lastKnown] } as unknown as Entry;
  return { ...entry, lineIds, content, parentLineId: entry.lineIds[lastKnown] };
}

async function openSource(session: SourceSession, options: WriteOptions): Promise<{ state: SourceState; created: boolean }> {
  const { ledger, store } = options;
  const known = store.source(session.key);
  if (known) {
    // Forks first, the main session last: when a fork shares its head, entries go to the main line.
    const heads = new Map<string, string>();
    const sessionHeads = new Map<string, string | null>();
    const visit = (tree: Awaited<ReturnType<AgentsLedger['tree']>>) => {
      for (const fork of tree.forks) visit(fork);
      sessionHeads.set(tree.session.id, tree.session.headTurnId);
      if (tree.session.headTurnId) heads.set(tree.session.headTurnId, tree.session.id);
    };
    visit(await ledger.tree(known.sessionId));
    return {
      state: {
        key: session.key,
        mainSessionId: known.sessionId,
        heads,
        sessionHeads,
        label: session.label,
        copiedFrom: session.forkOf?.copiesLines ? session.forkOf.key : undefined,
      },
      created: false,
    };
  }
  const forkPoint = session.forkOf ? forkPointOf(session.forkOf, store) : undefined;
  const sessionId = forkPoint
    ? (await ledger.forkFrom(forkPoint, { label: session.label, settings: options.settings })).session.id
    : (await ledger.createSession({ label: session.label, settings: options.settings })).id;
  if (forkPoint) options.counts.forks += 1;
  store.addSource(session.key, options.format, sessionId, options.path, Date.now());
  const heads = new Map<string, string>();
  if (forkPoint) heads.set(forkPoint, sessionId);
  const sessionHeads = new Map<string, string | null>([[sessionId, forkPoint ?? null]]);
  const state = {
    key: session.key,
    mainSessionId: sessionId,
    heads,
    sessionHeads,
    label: session.label,
    copiedFrom: session.forkOf?.copiesLines ? session.forkOf.key : undefined,
  };
  return { state, created: true };
}

/** The parent's turn a forked source starts after: the named line, else the turn at that time. */
function forkPointOf(forkOf: NonNullable<SourceSession['forkOf']>, store: ImportStore): string | undefined {
  const parent = store.source(forkOf.key);
  if (!parent) return undefined;
  if (forkOf.atLineId) {
    const turn = store.lineTurn(forkOf.key, forkOf.atLineId);
    if (turn) return turn;
  }
  if (forkOf.atTime !== undefined) return store.turnAtTime(parent.sessionId, forkOf.atTime);
  return undefined;
}

/** Writes one new entry and records its lines; returns the turn the next linear entry follows. */
async function writeEntry(
  state: SourceState,
  entry: TurnEntry | CompactionEntry | { kind: 'skip'; lineIds: string[]; parentLineId?: string | null; line: number },
  previousTurnId: string | null,
  options: WriteOptions,
): Promise<string | null> {
  const parentTurnId = resolveParent(state, entry.parentLineId, previousTurnId, options.store);
  let turnId: string | null = parentTurnId;
  try {
    if (entry.kind === 'turn') turnId = await writeTurn(state, entry, parentTurnId, options);
    else if (entry.kind === 'compaction') turnId = await writeCompaction(state, entry, parentTurnId, options);
  } catch (error) {
    if (!LedgerError.isInstance(error) || error.code === 'STORAGE') throw error;
    // The line stays recorded (at its parent's turn), so a re-run does not report it again.
    options.onProblem({ path: options.path, line: entry.line, message: `skipped: ${error.message}` });
  }
  for (const lineId of entry.lineIds) options.store.addLine(state.key, lineId, turnId);
  return turnId;
}

function resolveParent(
  state: SourceState,
  parentLineId: string | null | undefined,
  previousTurnId: string | null,
  store: ImportStore,
): string | null {
  if (parentLineId === undefined) return previousTurnId;
  if (parentLineId === null) return null;
  // A parent the file never wrote (a truncated or resumed file): carry on after the previous entry.
  return lineTurnOf(state, store, parentLineId) ?? previousTurnId;
}

/** The session an entry following `parentTurnId` goes to: the one whose head it is, or a new fork. */
async function sessionAfter(state: SourceState, parentTurnId: string | null, options: WriteOptions): Promise<string> {
  if (parentTurnId === null) {
    // A second root in one file (resumed or truncated): it continues the main line.
    const mainHead = state.sessionHeads.get(state.mainSessionId) ?? null;
    return mainHead === null ? state.mainSessionId : sessionAfter(state, mainHead, options);
  }
  const owner = state.heads.get(parentTurnId);
  if (owner) return owner;
  const fork = await options.ledger.forkFrom(parentTurnId, { label: `${state.label} · branch`, settings: options.settings });
  options.counts.forks += 1;
  state.heads.set(parentTurnId, fork.session.id);
  state.sessionHeads.set(fork.session.id, parentTurnId);
  return fork.session.id;
}

function moveHead(state: SourceState, sessionId: string, from: string | null, to: string): void {
  if (from !== null && state.heads.get(from) === sessionId) state.heads.delete(from);
  state.heads.set(to, sessionId);
  state.sessionHeads.set(sessionId, to);
}

async function writeTurn(
  state: SourceState,
  entry: TurnEntry,
  parentTurnId: string | null,
  options: WriteOptions,
): Promise<string> {
  const sessionId = await sessionAfter(state, parentTurnId, options);
  const head = state.sessionHeads.get(sessionId) ?? null;
  const turn = await options.ledger.appendTurn(sessionId, {
    role: entry.role,
    content: entry.content,
    expectedHeadTurnId: head,
    ...(entry.timestamp === undefined ? {} : { timestamp: entry.timestamp }),
    ...(entry.model === undefined ? {} : { model: entry.model }),
    metadata: { source: { format: options.format, lines: entry.lineIds }, ...entry.metadata },
  });
  moveHead(state, sessionId, head, turn.id);
  options.counts.turns += 1;
  return turn.id;
}

async function writeCompaction(
  state: SourceState,
  entry: CompactionEntry,
  parentTurnId: string | null,
  options: WriteOptions,
): Promise<string> {
  const { ledger, store } = options;
  const sessionId = await sessionAfter(state, parentTurnId, options);
  const head = state.sessionHeads.get(sessionId) ?? null;
  if (head === null) throw new Error('unreachable: a compaction follows a turn');
  const lookup = (lineId: string | undefined) =>
    lineId === undefined ? undefined : (lineTurnOf(state, store, lineId) ?? undefined);
  const firstKept = lookup(entry.firstKeptLineId);
  const through = firstKept ? undefined : (lookup(entry.summarizedThroughLineId) ?? head);
  const base = {
    summary: entry.summary,
    trigger: entry.trigger,
    summarizer: options.format,
    expectedHeadTurnId: head,
    ...(entry.timestamp === undefined ? {} : { timestamp: entry.timestamp }),
    metadata: { source: { format: options.format, lines: entry.lineIds }, ...entry.metadata },
  };
  let compaction: CompactionTurn;
  try {
    compaction = await ledger.recordCompaction(
      sessionId,
      firstKept ? { ...base, firstKeptTurnId: firstKept } : { ...base, summarizedThroughTurnId: through },
    );
  } catch (error) {
    // A cut the source names but the ledger cannot hold (it points into an earlier compaction):
    // the summary still stands for everything up to the head.
    if (!LedgerError.isInstance(error) || error.code !== 'INVALID_INPUT' || through === head) throw error;
    compaction = await ledger.recordCompaction(sessionId, { ...base, summarizedThroughTurnId: head });
  }
  moveHead(state, sessionId, head, compaction.id);
  options.counts.compactions += 1;
  return compaction.id;
}
