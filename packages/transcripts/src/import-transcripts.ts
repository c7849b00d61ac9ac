// `importTranscripts`: files, directories (recursively) and stdin, each file's format found from its
// first lines (or forced), read line by line and written by write-entries.ts. A directory's files
// are listed by list-transcript-files.ts, which also says which of its entries cannot be read.

import path from 'node:path';
import { type AgentsLedger, type ImportResult, importConversation, validateConversation } from '@agent-ledger/agents-ledger';
import { InvalidInputError, LedgerError, type SessionSettings } from '@agent-ledger/core';
import { FileBusyError, withFileLease } from './file-lease.ts';
import { claudeCodeFormat } from './formats/claude-code.ts';
import { codexFormat } from './formats/codex.ts';
import { isMessagesJson, messagesEntries } from './formats/messages-json.ts';
import { piFormat } from './formats/pi.ts';
import { type ImportRecords, importRecords } from './import-store.ts';
import { type ListedFile, listTranscriptFiles, whyUnreadable } from './list-transcript-files.ts';
import { finishedLines, isUnfinished, parseJsonLine, parseStorableJson, type ReadFrom, readLines } from './read-lines.ts';
import { headDigest, type PositionTracker, positionTracker, resumePoint } from './resume-position.ts';
import type { FormatName, SourceLine, TranscriptEntry, TranscriptFormat } from './transcript-entry.ts';
import { type ImportProblem, type WriteCounts, type WrittenSource, writeEntries } from './write-entries.ts';

/** JSONL formats, in the order they are tried (pi's header is the most specific). */
export const LINE_FORMATS: readonly TranscriptFormat[] = [piFormat, codexFormat, claudeCodeFormat];
export const FORMAT_NAMES: readonly FormatName[] = ['claude-code', 'codex', 'pi', 'messages', 'nexus-eval'];
const FORMATS_HELP = 'Formats: docs/import-export.md; --format claude-code|codex|pi|messages|nexus-eval picks one.';

export interface ImportTranscriptsOptions {
  ledger: AgentsLedger;
  /** Files, directories (every .jsonl / .json below them) and `-` for stdin. */
  paths: readonly string[];
  /** Relative paths resolve against this directory (default: process.cwd()). */
  cwd?: string;
  stdin?: NodeJS.ReadableStream;
  /** Skips detection: every file is read as this format. */
  format?: FormatName;
  /** Settings of the sessions created (contextWindow and friends). */
  settings?: Partial<SessionSettings>;
  /** nexus-eval/v1 files replay with compaction: the strategy and label of that session. */
  strategy?: string;
  label?: string;
  onProgress?(progress: ImportProgress): void;
  /**
   * How long to wait for another import of the same file to finish (one import of a file at a time,
   * across processes: file-lease.ts) before leaving the file to it; default 10 minutes.
   */
  busyWaitMs?: number;
}

export interface ImportProgress extends WriteCounts {
  file: string;
  filesDone: number;
  filesTotal: number;
}

export interface ImportedSource extends WrittenSource {
  path: string;
  format: FormatName;
  /** nexus-eval/v1 only: what the replay wrote (turn ids by message id, head, compactions). */
  replay?: ImportResult;
}

export interface TranscriptImportResult extends WriteCounts {
  files: number;
  sources: ImportedSource[];
  problems: ImportProblem[];
  /** Files another import was still importing after `busyWaitMs`: left to it. */
  busy: string[];
}

export async function importTranscripts(options: ImportTranscriptsOptions): Promise<TranscriptImportResult> {
  if (options.format !== undefined && !FORMAT_NAMES.includes(options.format)) {
    throw new InvalidInputError(`Unknown format ${JSON.stringify(options.format)}. ${FORMATS_HELP}`, 'format');
  }
  const cwd = options.cwd ?? process.cwd();
  // Absolute: a file's resume position and import lease are per file, however it was named.
  const listed = options.paths.map((given) =>
    given === '-' ? { files: [{ path: '-', explicit: true }], skipped: [] } : listTranscriptFiles(path.resolve(cwd, given)),
  );
  const files: ListedFile[] = listed.flatMap((each) => each.files);
  const counts: WriteCounts = {
    lines: 0,
    turns: 0,
    compactions: 0,
    forks: 0,
    known: 0,
    knownProblems: 0,
    unfinished: 0,
    resumed: 0,
  };
  const problems = listed.flatMap((each) => each.skipped);
  const result: TranscriptImportResult = { ...counts, files: files.length, sources: [], problems, busy: [] };
  for (const [index, file] of files.entries()) {
    const progress = () => options.onProgress?.({ ...counts, file: file.path, filesDone: index, filesTotal: files.length });
    progress();
    try {
      const imported = await importFile(file.path, { counts, options, problems: result.problems, progress });
      if (imported) result.sources.push(imported);
    } catch (error) {
      // Another import of the file is running: it imports what this one would have.
      if (error instanceof FileBusyError) {
        result.busy.push(file.path);
        continue;
      }
      // A file named on the command line fails the run; one found in a directory is reported.
      const unreadable = unreadableFile(error, file.path);
      if (unreadable !== null && !file.explicit) {
        result.problems.push({ path: file.path, line: 0, message: unreadable });
        continue;
      }
      const failure = unreadable === null ? error : new InvalidInputError(`${file.path} ${unreadable}`);
      if (file.explicit || !LedgerError.isInstance(failure)) throw failure;
      result.problems.push({ path: file.path, line: 0, message: failure.message });
    }
  }
  options.onProgress?.({ ...counts, file: '', filesDone: files.length, filesTotal: files.length });
  return { ...result, ...counts };
}

/**
 * Why the file system refused to read a file (gone since it was listed, permission denied, a link
 * loop), so it is reported with its path as the user's problem it is, never as an internal error;
 * null for any other failure.
 */
function unreadableFile(error: unknown, file: string): string | null {
  return (error as NodeJS.ErrnoException | null)?.path === file ? whyUnreadable(file, error) : null;
}

/** Ten minutes: another import of the same file may be reading a long transcript. */
const DEFAULT_BUSY_WAIT_MS = 10 * 60_000;

/** How one file is read: from its start or resumed, and what is watched to say where to resume next. */
interface Reading {
  records: ImportRecords;
  tracker: PositionTracker | null;
  /** The line reading resumed at (lines before it, but the first, were imported before); null: from the start. */
  resumedAt: number | null;
  /** Set when the file turned out to be JSONL of a known tool: the only files whose position is recorded. */
  lineFormat: boolean;
  /** The format named the source's session: a resumed read may jump to where it stopped. */
  sessionSeen: boolean;
}

interface ImportRun {
  counts: WriteCounts;
  options: ImportTranscriptsOptions;
  problems: ImportProblem[];
  progress: () => void;
}

async function importFile(file: string, run: ImportRun): Promise<ImportedSource | null> {
  const { options } = run;
  const records = importRecords(options.ledger);
  if (file === '-') {
    const reading: Reading = { records, tracker: null, resumedAt: null, lineFormat: false, sessionSeen: false };
    return importLines(readLines(options.stdin ?? process.stdin), file, reading, run);
  }
  return withFileLease(records, file, { waitMs: options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS }, async () => {
    // A JSONL transcript read before resumes where that import stopped (resume-position.ts).
    const resume = file.endsWith('.jsonl') ? resumePoint(file, await records.position(file)) : null;
    const tracker = positionTracker(resume?.from ?? null);
    const reading: Reading = { records, tracker, resumedAt: resume?.from.line ?? null, lineFormat: false, sessionSeen: false };
    const lines = resume ? headThenRest(file, resume.from, reading, run.counts) : readLines(file);
    const imported = await importLines(tracker.observe(lines), file, reading, run);
    const next = tracker.next();
    if (reading.lineFormat && next && tracker.head !== undefined)
      await records.setPosition({ path: file, ...next, head: headDigest(tracker.head), updatedAt: Date.now() });
    return imported;
  });
}

/**
 * A resumed read: the file's first lines until the format has named its session (a Claude Code file
 * may open with title and snapshot lines), then the lines from where the last import stopped.
 */
async function* headThenRest(file: string, from: ReadFrom, reading: Reading, counts: WriteCounts): AsyncGenerator<SourceLine> {
  let next = 1;
  for await (const line of readLines(file)) {
    if (line.number >= from.line) break;
    yield line;
    next = line.number + 1;
    if (reading.sessionSeen) break;
  }
  if (next >= from.line) {
    // The session was not named before where the last import stopped: read on from here.
    for await (const line of readLines(file)) if (line.number >= next) yield line;
    return;
  }
  counts.resumed += from.line - next;
  yield* readLines(file, from);
}

/**
 * A resumed read's entries, watched for the session: once the format has named it, the read jumps to
 * where the last import stopped. Entries of the lines read again before that are known lines, which
 * the writer skips (or, for a reply whose later lines come after the jump, appends only those).
 */
async function* watchedEntries(entries: AsyncIterable<TranscriptEntry>, reading: Reading): AsyncGenerator<TranscriptEntry> {
  for await (const entry of entries) {
    if (entry.kind === 'session') reading.sessionSeen = true;
    // Everything before where the last import stopped was written then: nothing there waits.
    if (entry.kind === 'unfinished' && reading.resumedAt !== null && entry.line < reading.resumedAt) continue;
    yield entry;
  }
}

/** JSONL transcripts are appended to while their tool runs; a .json document is written whole. */
function mayBeGrowing(file: string): boolean {
  return file.endsWith('.jsonl');
}

/** A file's first lines, looked at to find its format, and every line from the start. */
interface Peeked {
  /** Up to five first non-empty lines (fewer on a resumed read, once a format knows them). */
  firstLines: string[];
  /** A last line still being written was met: a file with no other line is a transcript just begun. */
  unfinishedHead: boolean;
  all: AsyncGenerator<SourceLine>;
}

/** Peeks at the first non-empty lines, then hands back every line from the start. */
async function peek(source: AsyncIterable<SourceLine>, file: string, reading: Reading): Promise<Peeked> {
  const lines = source[Symbol.asyncIterator]();
  const head: SourceLine[] = [];
  const firstLines: string[] = [];
  let unfinishedHead = false;
  // A resumed read stops looking as soon as a format knows the lines: the lines it would read past
  // are ones the last import already read, and the read must reach where it resumes from quickly.
  const enough = () =>
    firstLines.length >= 5 || (reading.resumedAt !== null && LINE_FORMATS.some((format) => format.detect(firstLines)));
  while (!enough()) {
    const next = await lines.next();
    if (next.done) break;
    head.push(next.value);
    if (next.value.text.trim() === '') continue;
    // A last line still being written says nothing yet about the format.
    if (mayBeGrowing(file) && isUnfinished(next.value)) unfinishedHead = true;
    else firstLines.push(next.value.text);
  }
  const all = (async function* () {
    yield* head;
    for (let next = await lines.next(); !next.done; next = await lines.next()) yield next.value;
  })();
  return { firstLines, unfinishedHead, all };
}

async function importLines(
  source: AsyncIterable<SourceLine>,
  file: string,
  reading: Reading,
  run: ImportRun,
): Promise<ImportedSource | null> {
  const { counts, options, problems } = run;
  const { firstLines, unfinishedHead, all } = await peek(source, file, reading);
  const first = firstLines[0];
  if (first === undefined) {
    if (unfinishedHead) counts.unfinished += 1;
    else problems.push({ path: file, line: 0, message: 'is empty; nothing imported' });
    return null;
  }
  const lineFormat =
    options.format === undefined
      ? 'value' in parseJsonLine({ number: 1, text: first })
        ? LINE_FORMATS.find((format) => format.detect(firstLines))
        : undefined
      : LINE_FORMATS.find((format) => format.name === options.format);
  if (!lineFormat) return importDocument(all, file, reading, run);
  reading.lineFormat = true;
  const finished = mayBeGrowing(file)
    ? finishedLines(all, (line) => {
        counts.unfinished += 1;
        reading.tracker?.unfinished(line);
      })
    : all;
  const entries = watchedEntries(lineFormat.read(finished, { path: file }), reading);
  return write({ format: lineFormat.name, entries, file, reading }, run);
}

/** Not JSONL of a known tool: a whole JSON document (nexus-eval/v1 or a messages list). */
async function importDocument(
  lines: AsyncIterable<SourceLine>,
  file: string,
  reading: Reading,
  run: ImportRun,
): Promise<ImportedSource | null> {
  const { options } = run;
  const chunks: string[] = [];
  for await (const line of lines) chunks.push(line.text);
  let value: unknown;
  try {
    value = parseStorableJson(chunks.join('\n'));
  } catch (error) {
    throw new InvalidInputError(
      `${file} is neither Claude Code, Codex or pi JSONL nor a JSON conversation (${(error as Error).message}). ${FORMATS_HELP}`,
    );
  }
  const format =
    options.format ??
    ((value as { format?: unknown } | null)?.format === 'nexus-eval/v1'
      ? 'nexus-eval'
      : isMessagesJson(value)
        ? 'messages'
        : undefined);
  if (format === 'nexus-eval') return importNexusEval(value, file, run.counts, options);
  if (format === 'messages')
    return write({ format: 'messages', entries: toAsync(messagesEntries(value, { path: file })), file, reading }, run);
  throw new InvalidInputError(`${file} is JSON but not a conversation this tool knows. ${FORMATS_HELP}`);
}

/** One file's entries, in the format they were read as, to be written. */
interface FileEntries {
  format: FormatName;
  entries: AsyncIterable<TranscriptEntry>;
  file: string;
  reading: Reading;
}

async function write(
  { format, entries, file, reading }: FileEntries,
  { counts, options, problems, progress }: ImportRun,
): Promise<ImportedSource | null> {
  const written = await writeEntries(entries, {
    ledger: options.ledger,
    store: reading.records,
    onUnfinished: (line) => reading.tracker?.unfinished(line),
    format,
    path: file,
    ...(options.settings ? { settings: options.settings } : {}),
    counts,
    onProblem: (problem) => problems.push(problem),
    onProgress: progress,
  });
  return written ? { ...written, path: file, format } : null;
}

/** nexus-eval/v1 replays through the agents ledger's importer, once per conversation id. */
async function importNexusEval(
  value: unknown,
  file: string,
  counts: WriteCounts,
  options: ImportTranscriptsOptions,
): Promise<ImportedSource> {
  let conversation: ReturnType<typeof validateConversation>;
  try {
    conversation = validateConversation(value, file);
  } catch (error) {
    if (!LedgerError.isInstance(error)) throw error;
    throw new InvalidInputError(`${error.message} ${FORMATS_HELP}`, (error as InvalidInputError).field);
  }
  const store = importRecords(options.ledger);
  const key = `nexus-eval:${conversation.id}`;
  counts.lines += conversation.messages.length;
  const known = await store.source(key);
  if (known) {
    counts.known += conversation.messages.length;
    return { key, sessionId: known.sessionId, created: false, added: 0, path: file, format: 'nexus-eval' };
  }
  const imported = await importConversation(options.ledger, conversation, {
    ...(options.label ? { label: options.label } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.strategy ? { strategy: options.strategy } : {}),
  });
  await store.addSource({ key, format: 'nexus-eval', sessionId: imported.sessionId, path: file, importedAt: Date.now() });
  counts.turns += imported.turns;
  counts.compactions += imported.compactions;
  return {
    key,
    sessionId: imported.sessionId,
    created: true,
    added: imported.turns + imported.compactions,
    path: file,
    format: 'nexus-eval',
    replay: imported,
  };
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/**
 * The ledger session a source session became (`claude-code:<session id>`, `codex:<id>`, `pi:<id>`),
 * once it was imported; undefined before.
 */
export async function importedSession(ledger: AgentsLedger, key: string): Promise<string | undefined> {
  return (await importRecords(ledger).source(key))?.sessionId;
}
