// What the writer knows of one source while it writes it: the ledger sessions it maps to and their
// heads, and how a source line is looked up (its own record, or the source a pi fork copied).
// Opening a source finds the session an earlier import made, or creates it (a fork when the
// source continues another one); an entry that follows a turn goes to the session whose head that
// turn is, or to a new fork there. The writer (write-entries.ts) uses this module, never the reverse:
// what it needs of the writer's options is `SourceContext`.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { SessionSettings } from '@agent-ledger/core';
import type { ImportRecords } from './import-store.ts';
import type { FormatName, SourceSession, TranscriptEntry } from './transcript-entry.ts';

/** What opening a source and making its sessions need of the import writing it. */
export interface SourceContext {
  ledger: AgentsLedger;
  store: ImportRecords;
  format: FormatName;
  path: string;
  settings?: Partial<SessionSettings>;
  /** The forks this module makes are counted here. */
  counts: { forks: number };
}

export interface SourceState {
  key: string;
  mainSessionId: string;
  /** Head turn → the source's session whose head it is: where an entry following it goes. */
  heads: Map<string, string>;
  /** Session → its head turn, for the sessions this source writes to. */
  sessionHeads: Map<string, string | null>;
  label: string;
  /** The source a forked transcript was copied from: lines it shares with it are found there. */
  copiedFrom?: string;
  /** A subagent's conversation: its id, written on each of its turns (metadata.subagent). */
  subagent?: string;
}

/** The turns holding source lines (null: known, before any turn), here or in the source it copies; unknown lines are absent. */
export async function lineTurnsOf(
  state: SourceState,
  store: ImportRecords,
  lineIds: readonly string[],
): Promise<Map<string, string | null>> {
  const own = await store.lineTurns(state.key, lineIds);
  const missing = lineIds.filter((lineId) => !own.has(lineId));
  if (missing.length === 0 || !state.copiedFrom) return own;
  for (const [lineId, turnId] of await store.lineTurns(state.copiedFrom, missing)) own.set(lineId, turnId);
  return own;
}

/** The turn holding one source line (null: known, before any turn; undefined: unknown). */
export async function lineTurnOf(state: SourceState, store: ImportRecords, lineId: string): Promise<string | null | undefined> {
  return (await lineTurnsOf(state, store, [lineId])).get(lineId);
}

/**
 * The part of an entry an earlier run did not import: all of it, none of it (null), or, for a turn
 * that grew since (a reply whose later blocks were written after the last import), its new lines'
 * blocks as a turn of their own following the old part.
 */
export async function freshPart<
  Entry extends Exclude<TranscriptEntry, SourceSession | { kind: 'problem' } | { kind: 'unfinished' }>,
>(state: SourceState, entry: Entry, store: ImportRecords): Promise<Entry | null> {
  const turns = await lineTurnsOf(state, store, entry.lineIds);
  const known = entry.lineIds.map((lineId) => turns.has(lineId));
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

export async function openSource(
  session: SourceSession,
  options: SourceContext,
): Promise<{ state: SourceState; created: boolean }> {
  const { ledger, store } = options;
  const known = await store.source(session.key);
  if (known) {
    // Forks first, the main session last: when a fork shares its head, entries go to the main line.
    const heads = new Map<string, string>();
    const sessionHeads = new Map<string, string | null>();
    const visit = (tree: Awaited<ReturnType<AgentsLedger['tree']>>) => {
      for (const fork of tree.forks) visit(fork);
      sessionHeads.set(tree.session.id, tree.session.headTurnId);
      if (tree.session.headTurnId) heads.set(tree.session.headTurnId, tree.session.id);
    };
    const tree = await ledger.tree(known.sessionId);
    visit(tree);
    const state: SourceState = {
      key: session.key,
      mainSessionId: known.sessionId,
      heads,
      sessionHeads,
      // The label it was given when it was first imported: a resumed read (resume-position.ts) may
      // not see the lines a label is made from.
      label: tree.session.label ?? session.label,
      copiedFrom: session.forkOf?.copiesLines ? session.forkOf.key : undefined,
      subagent: session.forkOf?.subagent,
    };
    await recordUnrecordedLines(state, options);
    return { state, created: false };
  }
  const copiedFrom = session.forkOf?.copiesLines && (await store.source(session.forkOf.key)) ? session.forkOf.key : undefined;
  if (copiedFrom) {
    // A file that repeats its parent's lines forks where the repeated lines end: at the parent of
    // its first new line, so the session is made when that line arrives (openPendingFork).
    const state = {
      key: session.key,
      mainSessionId: '',
      heads: new Map(),
      sessionHeads: new Map(),
      label: session.label,
      copiedFrom,
    };
    return { state, created: true };
  }
  const forkPoint = session.forkOf ? await forkPointOf(session.forkOf, store) : undefined;
  const sessionId = forkPoint
    ? (await ledger.forkFrom(forkPoint, { label: session.label, settings: options.settings })).session.id
    : (await ledger.createSession({ label: session.label, settings: options.settings })).id;
  if (forkPoint) options.counts.forks += 1;
  await store.addSource({ key: session.key, format: options.format, sessionId, path: options.path, importedAt: Date.now() });
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
    subagent: session.forkOf?.subagent,
  };
  return { state, created: true };
}

/** The parent's turn a forked source starts after: the named line, else the turn at that time. */
async function forkPointOf(forkOf: NonNullable<SourceSession['forkOf']>, store: ImportRecords): Promise<string | undefined> {
  const parent = await store.source(forkOf.key);
  if (!parent) return undefined;
  if (forkOf.atLineId) {
    const turn = (await store.lineTurns(forkOf.key, [forkOf.atLineId])).get(forkOf.atLineId);
    if (turn) return turn;
  }
  if (forkOf.atTime !== undefined) return store.turnAtTime(parent.sessionId, forkOf.atTime);
  return undefined;
}

/**
 * The session an entry following `parentTurnId` goes to: the one whose head it is, or a new fork
 * (labelled `forkLabel` when the source names one, else after the source's session).
 */
export async function sessionAfter(
  state: SourceState,
  parentTurnId: string | null,
  options: SourceContext,
  forkLabel?: string,
): Promise<string> {
  if (state.mainSessionId === '') return openPendingFork(state, parentTurnId, options);
  if (parentTurnId === null) {
    // A second root in one file (resumed or truncated): it continues the main line.
    const mainHead = state.sessionHeads.get(state.mainSessionId) ?? null;
    return mainHead === null ? state.mainSessionId : sessionAfter(state, mainHead, options);
  }
  const owner = state.heads.get(parentTurnId);
  if (owner) return owner;
  const fork = await options.ledger.forkFrom(parentTurnId, {
    label: forkLabel ?? `${state.label} · branch`,
    settings: options.settings,
  });
  options.counts.forks += 1;
  state.heads.set(parentTurnId, fork.session.id);
  state.sessionHeads.set(fork.session.id, parentTurnId);
  return fork.session.id;
}

/** A turn was written after `from`: it is now the session's head, where an entry following it goes. */
export function moveHead(state: SourceState, sessionId: string, from: string | null, to: string): void {
  if (from !== null && state.heads.get(from) === sessionId) state.heads.delete(from);
  state.heads.set(to, sessionId);
  state.sessionHeads.set(sessionId, to);
}

/** Makes the session of a source whose fork point was waiting for its first new line (see openSource). */
async function openPendingFork(state: SourceState, parentTurnId: string | null, options: SourceContext): Promise<string> {
  const { ledger, store } = options;
  const sessionId = parentTurnId
    ? (await ledger.forkFrom(parentTurnId, { label: state.label, settings: options.settings })).session.id
    : (await ledger.createSession({ label: state.label, settings: options.settings })).id;
  if (parentTurnId) options.counts.forks += 1;
  await store.addSource({ key: state.key, format: options.format, sessionId, path: options.path, importedAt: Date.now() });
  state.mainSessionId = sessionId;
  state.sessionHeads.set(sessionId, parentTurnId);
  if (parentTurnId) state.heads.set(parentTurnId, sessionId);
  return sessionId;
}

/**
 * Lines are recorded just after the turns holding them are written: a run stopped in between (a
 * crash, ^C) leaves turns whose lines are not recorded, which a re-run would write again. Each turn
 * names its lines in its metadata (source.lines), so before writing, walk back from each of the
 * source's heads and record the lines of the turns that lack them; the walk stops at the first turn
 * already recorded, so it costs a lookup per session when nothing was lost.
 */
async function recordUnrecordedLines(state: SourceState, options: SourceContext): Promise<void> {
  const { ledger, store } = options;
  for (const [sessionId, head] of state.sessionHeads) {
    let turnId = head;
    while (turnId) {
      const turn = await ledger.getTurn(turnId);
      const source = (turn.metadata as { source?: { format?: unknown; lines?: unknown } } | undefined)?.source;
      const lines = Array.isArray(source?.lines) ? source.lines.filter((line): line is string => typeof line === 'string') : [];
      // Another session's turn (a fork point), or one not written by this format's import.
      if (turn.sessionId !== sessionId || source?.format !== options.format || lines.length === 0) break;
      const known = await store.lineTurns(state.key, lines);
      if (known.size === lines.length) break;
      for (const line of lines) if (!known.has(line)) await store.addLine(state.key, line, turn.id);
      turnId = turn.parentTurnId;
    }
  }
  await store.flush();
}
