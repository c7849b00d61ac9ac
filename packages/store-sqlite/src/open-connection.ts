// How a better-sqlite3 connection to a ledger file is made for each use, so that reading a file
// leaves it and its folder exactly as they were. What SQLite does on its own decides the choice:
//
// - A read-only connection to a WAL database creates the -wal and -shm files beside it when they are
//   missing, and leaves them there: only a connection that may write removes them when it closes last.
// - So a reader of a file it may write opens it read-write with PRAGMA query_only: no statement can
//   write, and on close SQLite removes the side files it made (nothing was written, so nothing is
//   checkpointed into the file).
// - A reader of a file it may not write (a read-only file, or a file in a read-only folder, where
//   SQLite cannot create -shm) opens it `immutable`: no locks and no side files. That is safe because
//   no -wal file exists, so nobody is writing it, and nobody without write permission can start.
// - When -wal or -journal files are already there (a writer is at work, or one crashed), a reader
//   opens read-only and uses them as they are: it neither checkpoints a WAL nor rolls back a journal.
// - A check (doctor) runs FTS5's integrity-check, an INSERT command that writes nothing but that
//   SQLite refuses on a connection that cannot write. It opens a file it may write read-write, and
//   writes nothing; a file it may not write is read once, whole, into a private in-memory copy,
//   which it checks instead (memory the size of the file, for as long as the check runs).

import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { inMemoryCopy } from './in-memory-copy.ts';
import type { LedgerFile } from './ledger-file.ts';

/**
 * `read`: nothing can be written. `inspect`: nothing is written to the file, but the connection may
 * begin a write transaction (on a private copy where the file may not be written). `write`: the
 * file is created when missing.
 */
export type ConnectionAccess = 'read' | 'inspect' | 'write';

type ConnectionMode = 'read-write' | 'query-only' | 'read-only' | 'immutable' | 'private-copy';

export function connectionMode(file: LedgerFile, access: ConnectionAccess): ConnectionMode {
  if (access === 'write') return 'read-write';
  const { wal, journal } = file.sideFiles;
  if (!file.writable) {
    if (access === 'inspect') return 'private-copy';
    return wal || journal ? 'read-only' : 'immutable';
  }
  if (journal) return 'read-only';
  if (access === 'inspect') return 'read-write';
  return wal ? 'read-only' : 'query-only';
}

export function openConnection(
  file: LedgerFile,
  options: { access: ConnectionAccess; busyTimeoutMs: number },
): Database.Database {
  enableUriFilenames();
  const timeout = options.busyTimeoutMs;
  const mode = connectionMode(file, options.access);
  switch (mode) {
    case 'read-write':
      // An absolute path: a name starting with "file:" must never be read as a URI.
      return new Database(file.path, { timeout, fileMustExist: options.access !== 'write' });
    case 'query-only': {
      const sqlite = new Database(file.path, { timeout, fileMustExist: true });
      sqlite.pragma('query_only = ON');
      return sqlite;
    }
    case 'read-only':
      return new Database(file.path, { timeout, readonly: true, fileMustExist: true });
    case 'immutable':
      return openImmutable(file.path, timeout);
    case 'private-copy': {
      const source = openConnection(file, { access: 'read', busyTimeoutMs: timeout });
      try {
        return inMemoryCopy(source);
      } finally {
        source.close();
      }
    }
  }
}

/**
 * Lets an `immutable` opening be asked for with a URI. better-sqlite3 reads SQLITE_USE_URI once, when
 * its native module loads with the first connection of the process, so this runs before every
 * connection this package makes; paths given to SQLite here are absolute, so no ledger path is read
 * as a URI. A user's own SQLITE_USE_URI is kept.
 */
export function enableUriFilenames(): void {
  process.env.SQLITE_USE_URI ??= '1';
}

/**
 * Where something opened SQLite earlier in the process without URIs, the URI is taken as a file
 * name and fails: the plain read-only opening is then the one left (it works where the folder is
 * writable, and leaves -wal and -shm files there).
 */
function openImmutable(file: string, timeout: number): Database.Database {
  try {
    return new Database(`${pathToFileURL(file).href}?immutable=1`, { timeout, readonly: true, fileMustExist: true });
  } catch {
    return new Database(file, { timeout, readonly: true, fileMustExist: true });
  }
}
