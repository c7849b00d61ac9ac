// Which files an import path stands for: the path itself, or every .jsonl/.json below a folder, in a
// stable order with subagent files after the sessions they fork from. A folder is someone's real
// tree: a symbolic link loop, a dangling link, an entry that cannot be read or a FIFO named like a
// transcript is reported with its path and why (the caller lists it under "skipped") and the walk
// goes on. Reading the files is import-transcripts.ts's job.

import { accessSync, type BigIntStats, constants, type Dirent, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidInputError } from '@agent-ledger/core';
import type { ImportProblem } from './write-entries.ts';

export interface ListedFile {
  path: string;
  /** Named on the command line: its failure fails the run (one found in a folder is reported). */
  explicit: boolean;
}

export interface ListedPath {
  files: ListedFile[];
  /** Entries of a folder left out, each with why (line 0: the whole path). */
  skipped: ImportProblem[];
}

const TRANSCRIPT_NAME = /\.jsonl?$/;

/** A path's transcript files: itself (whatever it is: named, it is read as asked), or those below a folder. */
export function listTranscriptFiles(target: string): ListedPath {
  let stats: BigIntStats;
  try {
    stats = statOf(target);
  } catch (error) {
    throw new InvalidInputError(`${target} ${whyUnreadable(target, error)}`);
  }
  if (!stats.isDirectory()) return { files: [{ path: target, explicit: true }], skipped: [] };
  const walk: Walk = { found: [], skipped: [], walked: new Set() };
  walkFolder(walk, target, []);
  const isAgent = (file: string) => path.basename(file).startsWith('agent-');
  const ordered = [...walk.found.filter((file) => !isAgent(file)), ...walk.found.filter(isAgent)];
  return { files: ordered.map((file) => ({ path: file, explicit: false })), skipped: walk.skipped };
}

interface Walk {
  found: string[];
  skipped: ImportProblem[];
  /** Real paths of the folders walked: a folder reached twice (two links to it) is walked once. */
  walked: Set<string>;
}

/** One folder, depth first; `ancestors` are the real paths of the folders above it, to tell a loop. */
function walkFolder(walk: Walk, folder: string, ancestors: readonly string[]): void {
  const skip = (where: string, message: string) => walk.skipped.push({ path: where, line: 0, message });
  const unreadable = (error: unknown) => skip(folder, `${whyUnreadable(folder, error)}; nothing below it imported`);
  let real: string;
  try {
    real = realpathSync(folder);
  } catch (error) {
    unreadable(error);
    return;
  }
  if (ancestors.includes(real)) {
    skip(folder, `is a symbolic link loop (leads back to ${real}); not followed`);
    return;
  }
  // Reached before by another link: its files are listed once.
  if (walk.walked.has(real)) return;
  walk.walked.add(real);
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    unreadable(error);
    return;
  }
  for (const entry of entries.sort((left, right) => (left.name < right.name ? -1 : 1))) {
    const full = path.join(folder, entry.name);
    const kind = entryKind(entry, full);
    if (kind.folder) walkFolder(walk, full, [...ancestors, real]);
    else if (kind.problem !== undefined) skip(full, kind.problem);
    else if (kind.file) walk.found.push(full);
  }
}

/** What an entry is once links are followed, and a reason to skip it when it cannot be read. */
function entryKind(entry: Dirent, full: string): { folder?: true; file?: true; problem?: string } {
  const named = TRANSCRIPT_NAME.test(entry.name);
  if (entry.isDirectory()) return { folder: true };
  if (entry.isFile()) return named ? readable(full) : {};
  // A link (or an entry whose type the file system does not report): what it leads to decides. A
  // link that leads nowhere is reported whatever its name: it may have been a folder of transcripts.
  let target: BigIntStats;
  try {
    target = statOf(full);
  } catch (error) {
    return { problem: whyUnreadable(full, error) };
  }
  if (target.isDirectory()) return { folder: true };
  if (!named) return {};
  if (target.isFile()) return readable(full);
  // Opening a FIFO waits for a writer (the import would hang); a socket or device is no transcript.
  return { problem: `is ${specialKind(target)}, not a file; not read` };
}

/**
 * stat, following links, with bigint fields: a plain statSync of a FIFO or socket leaves Node's shared
 * stat buffer saying "FIFO", and Node 20's module loader then stops following symlinks: the next
 * lazily loaded package under pnpm's links (better-sqlite3 opening the ledger) is not found
 * (nodejs/node#51142). The bigint variant fills another buffer.
 */
function statOf(where: string): BigIntStats {
  return statSync(where, { bigint: true });
}

/** A transcript file the import can open (as root, every file is). */
function readable(full: string): { file?: true; problem?: string } {
  try {
    accessSync(full, constants.R_OK);
    return { file: true };
  } catch (error) {
    return { problem: whyUnreadable(full, error) };
  }
}

function specialKind(stats: BigIntStats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Why a path could not be read, to follow its name ("x.jsonl is a dangling symbolic link …"); the errno code kept. */
export function whyUnreadable(where: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ELOOP':
      return 'is a symbolic link loop (ELOOP)';
    case 'ENOENT': {
      const target = linkTarget(where);
      return target === null ? 'does not exist (ENOENT)' : `is a dangling symbolic link (ENOENT: nothing at ${target})`;
    }
    case 'EACCES':
    case 'EPERM':
      return `cannot be read: permission denied (${code})`;
    default:
      return `cannot be read: ${code ?? (error as Error).message}`;
  }
}

/** Where a symbolic link points (resolved from its own folder, as the file system does); null if not a link. */
function linkTarget(where: string): string | null {
  try {
    return path.resolve(path.dirname(where), readlinkSync(where));
  } catch {
    return null;
  }
}
