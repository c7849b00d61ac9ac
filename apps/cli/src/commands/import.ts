// `nexus import PATH…`: the transcripts people already have (Claude Code, Codex, pi, Messages-API
// JSON, nexus-eval/v1) into the ledger, files, folders and stdin, idempotently. The work is
// @agent-ledger/transcripts'; this file parses options, shows a progress bar on a terminal and reports.

import type { FormatName, TranscriptImportResult } from '@agent-ledger/transcripts';
import { stringOption } from '../arguments.ts';
import type { Command, CommandIo } from '../command.ts';
import { SETTINGS_OPTIONS, settingsFromOptions } from './session.ts';

const SHOWN_PROBLEMS = 20;

export const importCommand: Command = {
  path: ['import'],
  summary: 'Import Claude Code, Codex or pi sessions, Messages JSON or nexus-eval/v1 files; idempotent.',
  arguments: ['<file>...'],
  options: {
    format: {
      type: 'string',
      description: 'claude-code, codex, pi, messages or nexus-eval (default: detected per file)',
      valueName: 'NAME',
    },
    strategy: {
      type: 'string',
      description: 'nexus-eval files: compaction strategy of the replay (default flat)',
      valueName: 'NAME',
    },
    label: { type: 'string', description: 'nexus-eval files: session label (default: the file’s id)', valueName: 'TEXT' },
    ...SETTINGS_OPTIONS,
  },
  details: [
    'Each path is a file, a folder (every .jsonl/.json below it: `nexus import ~/.claude/projects ~/.codex/sessions`) or - for stdin.',
    'One source session becomes one ledger session (labelled with the tool, project folder and start time); its branches,',
    'subagents and Codex/pi forks become forks, its compactions compaction turns. Each source line is recorded: a re-run',
    'imports nothing new (one line, exit 0), and a transcript that grew appends only its new lines to the same session. A',
    'malformed line is reported once with its file and line number and skipped (exit code 1); later runs count it as known.',
    'In a folder, links to folders are followed (each folder once); a link loop, a dangling link, an entry that cannot',
    'be read or a FIFO named like a transcript is listed under "skipped" with why (exit code 1) and the rest is imported.',
    'A last line still being written (no newline yet) is left for the next run. nexus-eval/v1 files are',
    'replayed with compaction on threshold (small --context-window/--reserve/--keep values compact a short one several',
    'times). Formats and what is kept: docs/import-export.md.',
  ].join('\n'),
  async run({ positionals, options, io, openLedger }) {
    const [{ importTranscripts }, { startImportProgress }] = await Promise.all([
      import('@agent-ledger/transcripts'),
      import('../import/import-progress.ts'),
    ]);
    const progress = startImportProgress(io);
    let result: TranscriptImportResult;
    try {
      result = await importTranscripts({
        ledger: openLedger(),
        paths: positionals,
        stdin: io.stdin,
        ...(typeof options.format === 'string' ? { format: options.format as FormatName } : {}),
        settings: settingsFromOptions(options),
        ...(typeof options.strategy === 'string' ? { strategy: options.strategy } : {}),
        ...(stringOption(options.label) ? { label: stringOption(options.label) as string } : {}),
        onProgress: progress.update,
      });
    } finally {
      progress.stop();
    }
    reportImport(io, result);
    // One nexus-eval file: its replay's ids too (session, head, turn id of each message), as before.
    const replay = result.sources.length === 1 ? result.sources[0]?.replay : undefined;
    return replay ? { ...result, ...replay } : result;
  },
};

/**
 * What changed, in as few lines as say it: one line when nothing is new (a scheduled re-run), else
 * the totals, each source that gained something, and the lines newly found malformed or the paths
 * that could not be read (exit 1).
 */
function reportImport(io: CommandIo, result: TranscriptImportResult): void {
  const added = result.turns + result.compactions + result.forks;
  const asBefore = [
    result.knownProblems > 0 ? `${count(result.knownProblems, 'malformed line')} skipped as reported before` : '',
    // Held back: a last line with no newline yet, a tool call whose result is not written, a
    // compaction boundary whose summary is not: each is imported once it is whole.
    result.unfinished > 0 ? `${count(result.unfinished, 'line')} held back until complete (still being written)` : '',
    result.busy.length > 0 ? `${count(result.busy.length, 'file')} left to another import of it that is running` : '',
  ].filter(Boolean);
  const notes = asBefore.length > 0 ? `; ${asBefore.join('; ')}` : '';
  if (added === 0 && result.problems.length === 0) {
    io.print(`nothing new in ${count(result.files, 'file')}${notes}`);
    return;
  }
  const changed = result.sources.filter((source) => source.created || source.added > 0);
  const unchanged = result.sources.length - changed.length;
  io.print(
    `imported ${count(result.files, 'file')}, ${count(result.lines, 'line')}: ${count(result.turns, 'new turn')}, ` +
      `${count(result.compactions, 'compaction')}, ${count(result.forks, 'fork')}` +
      (result.known > 0 ? ` (${count(result.known, 'line')} already imported)` : '') +
      notes,
  );
  for (const source of changed) {
    io.print(`  ${source.sessionId}  ${source.format.padEnd(11)} ${source.created ? 'new    ' : 'updated'}  ${source.path}`);
  }
  if (unchanged > 0) io.print(`  … ${count(unchanged, 'other session')} unchanged`);
  if (result.problems.length > 0) {
    io.print(`skipped (${result.problems.length}):`);
    for (const problem of result.problems.slice(0, SHOWN_PROBLEMS)) {
      io.print(`  ${problem.path}${problem.line > 0 ? `:${problem.line}` : ''}: ${problem.message}`);
    }
    if (result.problems.length > SHOWN_PROBLEMS)
      io.print(`  … and ${result.problems.length - SHOWN_PROBLEMS} more (--json lists all)`);
    io.setExitCode(1);
  }
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}
