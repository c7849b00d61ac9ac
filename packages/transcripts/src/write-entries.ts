// Writes one transcript's entries into the ledger, whatever the format: one source session → one
// ledger session, a branch (an entry whose parent is not the newest turn of any of the source's
// sessions) → a fork at that turn, a compaction → recordCompaction with the source's summary and
// cut. Each source line is recorded with the turn that holds it, so a re-run skips what it has and
// a grown transcript appends only its new lines. Turns that follow one another are appended in
// batches (one appendTurns call, one transaction, each), and the lines of a batch are recorded
// right after it in one store write. A run stopped in between is made whole by the next one (each
// turn names its lines in its metadata: openSource records the lines of turns that lack them), so
// an interrupted import resumes where it stopped without writing a turn twice.

import type { AppendTurnInput } from '@agent-ledger/agents-ledger';
import { type CompactionTurn, LedgerError } from '@agent-ledger/core';
import type { ImportRecords } from './import-store.ts';
import {
  freshPart,
  lineTurnOf,
  moveHead,
  openSource,
  type SourceContext,
  type SourceState,
  sessionAfter,
} from './source-state.ts';
import type { CompactionEntry, ProblemEntry, SkipEntry, TranscriptEntry, TurnEntry } from './transcript-entry.ts';

const BATCH_TURNS = 500;

export interface WriteCounts {
  lines: number;
  turns: number;
  compactions: number;
  forks: number;
  /** Lines already imported by an earlier run. */
  known: number;
  /** Malformed lines an earlier run already reported (recorded, so they are not reported again). */
  knownProblems: number;
  /** A last line still being written (no newline, not yet whole JSON): left for the next import. */
  unfinished: number;
  /** Lines of files an earlier import read past, not read again (resume-position.ts). */
  resumed: number;
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
  /** Turns, compactions and forks this run added for the source (0: nothing new in it). */
  added: number;
}

export interface WriteOptions extends SourceContext {
  counts: WriteCounts;
  onProblem(problem: ImportProblem): void;
  /** A line left for the next import (a round or compaction the tool is still writing). */
  onUnfinished?(line: number): void;
  onProgress?(): void;
}

/** Turns waiting to be appended to one session, each with the source lines it will hold. */
interface Batch {
  sessionId: string;
  items: Array<{ input: AppendTurnInput; lineIds: string[]; line: number }>;
}

type LineEntry = TurnEntry | CompactionEntry | SkipEntry;

/** Writes the entries of one file; returns the source it wrote to (null for a file with no session). */
export async function writeEntries(
  entries: AsyncIterable<TranscriptEntry>,
  options: WriteOptions,
): Promise<WrittenSource | null> {
  const { store, counts } = options;
  let state: SourceState | null = null;
  let written: WrittenSource | null = null;
  const cursor: Cursor = { previousTurnId: null, batch: null };
  const addedBefore = counts.turns + counts.compactions + counts.forks;
  // Problems found before the source's session is known wait for it: they are recorded under it.
  const earlyProblems: ProblemEntry[] = [];
  try {
    for await (const entry of entries) {
      if (entry.kind === 'unfinished') {
        counts.unfinished += 1;
        options.onUnfinished?.(entry.line);
        continue;
      }
      if (entry.kind === 'problem') {
        if (state) await reportProblem(state, entry, options);
        else earlyProblems.push(entry);
        continue;
      }
      if (entry.kind === 'session') {
        const opened = await openSource(entry, options);
        state = opened.state;
        written = { key: entry.key, sessionId: state.mainSessionId, created: opened.created, added: 0 };
        for (const problem of earlyProblems.splice(0)) await reportProblem(state, problem, options);
        continue;
      }
      if (!state) throw new Error('a transcript format yielded an entry before its session');
      counts.lines += entry.lineIds.length;
      const fresh = await freshPart(state, entry, store);
      counts.known += entry.lineIds.length - (fresh?.lineIds.length ?? 0);
      if (fresh) await writeEntry(state, fresh, cursor, options);
      else {
        await flush(state, cursor, options);
        cursor.previousTurnId = (await lineTurnOf(state, store, entry.lineIds.at(-1) as string)) ?? cursor.previousTurnId;
      }
      options.onProgress?.();
    }
    if (state) await flush(state, cursor, options);
    // No session came: its problems cannot be recorded, so every run reports them.
    for (const problem of earlyProblems) options.onProblem({ path: options.path, line: problem.line, message: problem.message });
    // A fork file that only repeated its parent's lines made no session of its own.
    const added = counts.turns + counts.compactions + counts.forks - addedBefore;
    if (written && state) written = state.mainSessionId === '' ? null : { ...written, sessionId: state.mainSessionId, added };
    await store.flush();
  } catch (error) {
    // The lines of every turn written so far, when the store still takes them (else the next run
    // records them from the turns' metadata); the error that stopped the run is the one reported.
    await store.flush().catch(() => undefined);
    throw error;
  }
  return written;
}

interface Cursor {
  /** The turn the next linear entry follows (once the batch is flushed). */
  previousTurnId: string | null;
  batch: Batch | null;
}

/** Writes one new entry and records its lines (now, or when its batch is appended). */
async function writeEntry(state: SourceState, entry: LineEntry, cursor: Cursor, options: WriteOptions): Promise<void> {
  const batch = cursor.batch;
  // An entry following the batch's last turn joins it: a turn as the next item, a skip line as a
  // line of that turn.
  const last = batch?.items.at(-1);
  const parentLineId = entry.parentLineId;
  if (
    last &&
    entry.kind !== 'compaction' &&
    (parentLineId === undefined || (parentLineId !== null && last.lineIds.includes(parentLineId)))
  ) {
    if (entry.kind === 'skip') last.lineIds.push(...entry.lineIds);
    else batch?.items.push({ input: inputOf(state, entry, options), lineIds: [...entry.lineIds], line: entry.line });
    if ((batch?.items.length ?? 0) >= BATCH_TURNS) await flush(state, cursor, options);
    return;
  }
  await flush(state, cursor, options);
  const parentTurnId = await resolveParent(state, entry.parentLineId, cursor.previousTurnId, options.store);
  if (entry.kind === 'turn') {
    try {
      const sessionId = await sessionAfter(state, parentTurnId, options, entry.forkLabel);
      cursor.batch = {
        sessionId,
        items: [{ input: inputOf(state, entry, options), lineIds: [...entry.lineIds], line: entry.line }],
      };
      return;
    } catch (error) {
      reportSkipped(error, entry.line, options);
    }
  }
  let turnId = parentTurnId;
  if (entry.kind === 'compaction') {
    try {
      turnId = await writeCompaction(state, entry, parentTurnId, options);
    } catch (error) {
      reportSkipped(error, entry.line, options);
    }
  }
  for (const lineId of entry.lineIds) await options.store.addLine(state.key, lineId, turnId);
  cursor.previousTurnId = turnId;
}

/**
 * A malformed line: reported the first time an import meets it, and recorded (as a line of no turn,
 * keyed by its line number: a transcript only grows at its end) so a later run counts it as known
 * instead of reporting the same line again.
 */
async function reportProblem(state: SourceState, problem: ProblemEntry, options: WriteOptions): Promise<void> {
  const lineId = `problem:${problem.line}`;
  if ((await options.store.lineTurns(state.key, [lineId])).has(lineId)) {
    options.counts.knownProblems += 1;
    return;
  }
  await options.store.addLine(state.key, lineId, null);
  options.onProblem({ path: options.path, line: problem.line, message: problem.message });
}

/** A source line the ledger refuses (a turn over the context window, say) is reported and skipped. */
function reportSkipped(error: unknown, line: number, options: WriteOptions): void {
  if (!LedgerError.isInstance(error) || error.code === 'STORAGE') throw error;
  // The line stays recorded (at its parent's turn), so a re-run does not report it again.
  options.onProblem({ path: options.path, line, message: `skipped: ${error.message}` });
}

function inputOf(state: SourceState, entry: TurnEntry, options: WriteOptions): AppendTurnInput {
  return {
    role: entry.role,
    content: entry.content,
    ...(entry.timestamp === undefined ? {} : { timestamp: entry.timestamp }),
    ...(entry.model === undefined ? {} : { model: entry.model }),
    metadata: {
      source: { format: options.format, lines: entry.lineIds },
      ...(state.subagent === undefined ? {} : { subagent: { id: state.subagent } }),
      ...entry.metadata,
    },
  };
}

/** Appends the batch in one call (item by item when the ledger refuses one) and records its lines. */
async function flush(state: SourceState, cursor: Cursor, options: WriteOptions): Promise<void> {
  const batch = cursor.batch;
  if (!batch) return;
  cursor.batch = null;
  const { ledger, store, counts } = options;
  let head = state.sessionHeads.get(batch.sessionId) ?? null;
  const record = async (item: Batch['items'][number], turnId: string | null) => {
    for (const lineId of item.lineIds) await store.addLine(state.key, lineId, turnId);
  };
  try {
    const turns = await ledger.appendTurns(
      batch.sessionId,
      batch.items.map((item, index) => (index === 0 ? { ...item.input, expectedHeadTurnId: head } : item.input)),
    );
    for (const [index, item] of batch.items.entries()) await record(item, turns[index]?.id ?? null);
    await store.flush();
    const newest = turns.at(-1)?.id as string;
    moveHead(state, batch.sessionId, head, newest);
    counts.turns += turns.length;
    cursor.previousTurnId = newest;
  } catch (error) {
    if (!LedgerError.isInstance(error) || error.code === 'STORAGE' || error.code === 'HEAD_CONFLICT') throw error;
    for (const item of batch.items) {
      try {
        const turn = await ledger.appendTurn(batch.sessionId, { ...item.input, expectedHeadTurnId: head });
        moveHead(state, batch.sessionId, head, turn.id);
        head = turn.id;
        counts.turns += 1;
      } catch (itemError) {
        reportSkipped(itemError, item.line, options);
      }
      await record(item, head);
    }
    await store.flush();
    cursor.previousTurnId = head;
  }
}

async function resolveParent(
  state: SourceState,
  parentLineId: string | null | undefined,
  previousTurnId: string | null,
  store: ImportRecords,
): Promise<string | null> {
  if (parentLineId === undefined) return previousTurnId;
  if (parentLineId === null) return null;
  // A parent the file never wrote (a truncated or resumed file): carry on after the previous entry.
  return (await lineTurnOf(state, store, parentLineId)) ?? previousTurnId;
}

async function writeCompaction(
  state: SourceState,
  entry: CompactionEntry,
  parentTurnId: string | null,
  options: WriteOptions,
): Promise<string> {
  const { ledger, store } = options;
  const sessionId = await sessionAfter(state, parentTurnId, options, entry.forkLabel);
  const head = state.sessionHeads.get(sessionId) ?? null;
  if (head === null) throw new Error('unreachable: a compaction follows a turn');
  const lookup = async (lineId: string | undefined) =>
    lineId === undefined ? undefined : ((await lineTurnOf(state, store, lineId)) ?? undefined);
  const firstKept = await lookup(entry.firstKeptLineId);
  const through = firstKept ? undefined : ((await lookup(entry.summarizedThroughLineId)) ?? head);
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
