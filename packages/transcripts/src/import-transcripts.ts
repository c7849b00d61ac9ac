// `importTranscripts`: files, directories (recursively) and stdin, each file's format found from its
// first lines (or forced), read line by line and written by write-entries.ts. A directory is read
// in a stable order with subagent files after the sessions they fork from.

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { type AgentsLedger, type ImportResult, importConversation, validateConversation } from '@agent-ledger/agents-ledger';
import { InvalidInputError, LedgerError, type SessionSettings } from '@agent-ledger/core';
import { claudeCodeFormat } from './formats/claude-code.ts';
import { codexFormat } from './formats/codex.ts';
import { isMessagesJson, messagesEntries } from './formats/messages-json.ts';
import { piFormat } from './formats/pi.ts';
import { importRecords } from './import-store.ts';
import { finishedLines, isUnfinished, parseJsonLine, readLines } from './read-lines.ts';
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
}

export async function importTranscripts(options: ImportTranscriptsOptions): Promise<TranscriptImportResult> {
  if (options.format !== undefined && !FORMAT_NAMES.includes(options.format)) {
    throw new InvalidInputError(`Unknown format ${JSON.stringify(options.format)}. ${FORMATS_HELP}`, 'format');
  }
  const cwd = options.cwd ?? process.cwd();
  const files = options.paths.flatMap((given) =>
    given === '-' ? [{ path: '-', explicit: true }] : listFiles(path.resolve(cwd, given)),
  );
  const counts: WriteCounts = { lines: 0, turns: 0, compactions: 0, forks: 0, known: 0, knownProblems: 0, unfinished: 0 };
  const result: TranscriptImportResult = { ...counts, files: files.length, sources: [], problems: [] };
  for (const [index, file] of files.entries()) {
    const progress = () => options.onProgress?.({ ...counts, file: file.path, filesDone: index, filesTotal: files.length });
    progress();
    try {
      const imported = await importFile(file.path, counts, options, result.problems, progress);
      if (imported) result.sources.push(imported);
    } catch (error) {
      // A file named on the command line fails the run; one found in a directory is reported.
      if (file.explicit || !LedgerError.isInstance(error)) throw error;
      result.problems.push({ path: file.path, line: 0, message: error.message });
    }
  }
  options.onProgress?.({ ...counts, file: '', filesDone: files.length, filesTotal: files.length });
  return { ...result, ...counts };
}

/** A path's transcript files: itself, or every .jsonl/.json below a directory, subagents last. */
function listFiles(target: string): Array<{ path: string; explicit: boolean }> {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(target);
  } catch (error) {
    throw new InvalidInputError(`cannot read ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!stats.isDirectory()) return [{ path: target, explicit: true }];
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.jsonl?$/.test(entry.name)) found.push(full);
    }
  };
  walk(target);
  const isAgent = (file: string) => path.basename(file).startsWith('agent-');
  return [...found.filter((file) => !isAgent(file)), ...found.filter(isAgent)].map((file) => ({ path: file, explicit: false }));
}

async function importFile(
  file: string,
  counts: WriteCounts,
  options: ImportTranscriptsOptions,
  problems: ImportProblem[],
  progress: () => void,
): Promise<ImportedSource | null> {
  const lines = readLines(file === '-' ? (options.stdin ?? process.stdin) : file)[Symbol.asyncIterator]();
  // Peek at the first non-empty lines, then hand the format every line from the start.
  const head: SourceLine[] = [];
  const firstLines: string[] = [];
  // JSONL transcripts are appended to while their tool runs; a .json document is written whole.
  const mayBeGrowing = file.endsWith('.jsonl');
  let unfinishedHead = false;
  while (firstLines.length < 5) {
    const next = await lines.next();
    if (next.done) break;
    head.push(next.value);
    if (next.value.text.trim() === '') continue;
    // A last line still being written says nothing yet about the format.
    if (mayBeGrowing && isUnfinished(next.value)) unfinishedHead = true;
    else firstLines.push(next.value.text);
  }
  const all = (async function* () {
    yield* head;
    for (let next = await lines.next(); !next.done; next = await lines.next()) yield next.value;
  })();
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
  if (lineFormat) {
    const finished = mayBeGrowing
      ? finishedLines(all, () => {
          counts.unfinished += 1;
        })
      : all;
    return write(lineFormat.name, lineFormat.read(finished, { path: file }), file, counts, options, problems, progress);
  }

  // Not JSONL of a known tool: a whole JSON document (nexus-eval/v1 or a messages list).
  const chunks: string[] = [];
  for await (const line of all) chunks.push(line.text);
  let value: unknown;
  try {
    value = JSON.parse(chunks.join('\n'));
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
  if (format === 'nexus-eval') return importNexusEval(value, file, counts, options);
  if (format === 'messages')
    return write('messages', toAsync(messagesEntries(value, { path: file })), file, counts, options, problems, progress);
  throw new InvalidInputError(`${file} is JSON but not a conversation this tool knows. ${FORMATS_HELP}`);
}

async function write(
  format: FormatName,
  entries: AsyncIterable<TranscriptEntry>,
  file: string,
  counts: WriteCounts,
  options: ImportTranscriptsOptions,
  problems: ImportProblem[],
  progress: () => void,
): Promise<ImportedSource | null> {
  const written = await writeEntries(entries, {
    ledger: options.ledger,
    store: importRecords(options.ledger),
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
  await store.addSource(key, 'nexus-eval', imported.sessionId, file, Date.now());
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
