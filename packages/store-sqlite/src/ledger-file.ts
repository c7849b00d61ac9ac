// What a path holds, read from the file system alone: missing, a directory, an empty file, SQLite or
// not, its journal mode, whether its header says it is longer than it is, which side files lie beside
// it and whether this process may write there. No SQLite connection is opened here, so looking at a
// file creates nothing beside it (a connection to a WAL database makes -wal and -shm files);
// open-database.ts decides from this how the file may be opened.

import { accessSync, closeSync, constants, existsSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';

export interface SideFiles {
  wal: boolean;
  shm: boolean;
  journal: boolean;
}

export type LedgerFile =
  | { kind: 'missing' | 'directory' | 'empty' | 'not-sqlite'; path: string; sideFiles: SideFiles; writable: boolean }
  | {
      kind: 'sqlite';
      path: string;
      sideFiles: SideFiles;
      writable: boolean;
      /** The header's journal mode: a ledger is 'wal' (a file a program made with a rollback journal is 'rollback'). */
      journal: 'wal' | 'rollback';
      /** Why the header shows the file is damaged (cut short, say), or null. */
      damage: string | null;
    };

/** Every SQLite database file starts with these 16 bytes. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;

export function inspectLedgerFile(file: string): LedgerFile {
  const absolute = path.resolve(file);
  const sideFiles = {
    wal: existsSync(`${absolute}-wal`),
    shm: existsSync(`${absolute}-shm`),
    journal: existsSync(`${absolute}-journal`),
  };
  if (!existsSync(absolute)) {
    // A folder that is not there is for the opening to report ("the directory does not exist").
    const folder = path.dirname(absolute);
    return { kind: 'missing', path: absolute, sideFiles, writable: !existsSync(folder) || mayWrite(folder) };
  }
  const stats = statSync(absolute);
  const writable = mayWrite(absolute) && mayWrite(path.dirname(absolute));
  if (stats.isDirectory()) return { kind: 'directory', path: absolute, sideFiles, writable };
  if (stats.size === 0) return { kind: 'empty', path: absolute, sideFiles, writable };
  const header = readHeader(absolute);
  if (!startsLikeSqlite(header)) return { kind: 'not-sqlite', path: absolute, sideFiles, writable };
  return {
    kind: 'sqlite',
    path: absolute,
    sideFiles,
    writable,
    // The read version byte: 2 is WAL, as SQLite itself decides when it opens the file.
    journal: header[19] === 2 ? 'wal' : 'rollback',
    damage: headerDamage(header, stats.size, sideFiles.wal),
  };
}

/** Whether this process may write `target` (a file, or a folder to create files in). */
function mayWrite(target: string): boolean {
  try {
    accessSync(target, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function readHeader(file: string): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  const descriptor = openSync(file, 'r');
  try {
    const read = readSync(descriptor, header, 0, HEADER_BYTES, 0);
    return header.subarray(0, read);
  } finally {
    closeSync(descriptor);
  }
}

/** The magic string, or a file cut short inside it. */
function startsLikeSqlite(header: Buffer): boolean {
  const length = Math.min(header.length, MAGIC.length);
  return header.subarray(0, length).equals(MAGIC.subarray(0, length));
}

/**
 * What the header shows is wrong with the file. SQLite reports a file shorter than its header's
 * page count as malformed on the first read; saying so here, with the numbers, tells a person the
 * file was cut short (a copy that stopped, a full disk) rather than that it is not a database.
 * With a -wal file beside it the newest pages may live there, so only SQLite can tell.
 */
function headerDamage(header: Buffer, size: number, walPresent: boolean): string | null {
  if (header.length < HEADER_BYTES)
    return `it ends after ${size} bytes, inside its ${HEADER_BYTES}-byte header: it was cut short`;
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
    return `its header gives a page size of ${rawPageSize}, which SQLite never writes: the header is overwritten`;
  const pages = header.readUInt32BE(28);
  // The header's page count is only kept up to date when these two counters agree (SQLite 3.7.0+).
  const pageCountValid = header.readUInt32BE(24) === header.readUInt32BE(92);
  if (!walPresent && pageCountValid && pages > 0 && pages * pageSize > size)
    return `it is ${size} bytes, but its header says ${pages} pages of ${pageSize} bytes (${pages * pageSize}): it was cut short`;
  return null;
}
