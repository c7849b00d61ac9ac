// Why a file is not opened, in words a person can act on: it is not a ledger (DatabaseNotFoundError,
// with the reason), it is a damaged one (StorageError, with how to recover what it holds), or it is
// older than this code and was opened without migrating. Messages name library calls; the CLI says
// the same in its own commands (apps/cli/src/cli-conventions.ts).

import { DatabaseNotFoundError, StorageError } from '@agent-ledger/core';
import type { LedgerFile } from './ledger-file.ts';

export const NOT_A_LEDGER = {
  directory: 'It is a directory: give the ledger file inside it.',
  empty: 'It is an empty file, not a ledger yet (opening it to write makes it one).',
  notSqlite: 'It is not a SQLite database (it does not start with the SQLite header).',
  blank: 'It is a SQLite database with no tables, not a nexus ledger.',
} as const;

export function notALedger(file: LedgerFile, reason?: string): DatabaseNotFoundError {
  return new DatabaseNotFoundError(file.path, reason);
}

export function foreignDatabase(file: LedgerFile, tables: readonly string[]): DatabaseNotFoundError {
  const shown = tables.length > 5 ? [...tables.slice(0, 5), '…'] : tables;
  return new DatabaseNotFoundError(
    file.path,
    `It is a SQLite database, but not a nexus ledger (it has no agent_sessions table; its tables: ${shown.join(', ')}); nothing was written to it.`,
  );
}

/** Where the library's recovery advice starts (apps/cli's cli-conventions.ts gives its own commands from here). */
const LIBRARY_RECOVERY = 'Keep the file as it is and recover into a new one:';

/** `sqlite3 .dump` of a damaged file ends in a ROLLBACK that would drop what it read: this commits it. */
const DUMP_KEEPS_WHAT_READ = 's/^ROLLBACK; -- due to errors$/COMMIT;/';

/**
 * A ledger whose file is damaged. Nothing is written to it: writing into a damaged B-tree can spread
 * the damage, and the pages that still read are what a recovery starts from. The recipe is the
 * sqlite3 shell's .dump: its .recover needs the sqlite_dbpage table, which common builds (Debian's
 * 3.40) leave out, and then fails even on a healthy file.
 */
export function damagedLedger(file: LedgerFile, detail: string, options: { cause?: unknown } = {}): StorageError {
  return new StorageError(
    `The ledger at ${file.path} is damaged: ${detail}. Nothing was written to it. ${LIBRARY_RECOVERY} ` +
      `\`sqlite3 ${file.path} .dump | sed '${DUMP_KEEPS_WHAT_READ}' | sqlite3 recovered.db\` copies every row SQLite ` +
      'can still read (a dump of a damaged file ends in ROLLBACK: the sed keeps what was read); copyLedger() copies ' +
      "the ledger when its rows still read (damage in an index, say); the events ledger's verify() with a checkpoint " +
      'kept elsewhere (as checkpoint() returns it) then shows which events were lost.',
    options,
  );
}

export function olderLedger(file: LedgerFile, missing: readonly string[]): StorageError {
  return new StorageError(
    `The ledger at ${file.path} is older than this version (migrations ${missing.join(', ')} not applied), and this ` +
      'process may not write it to migrate it: a read would fail on what those migrations add. Nothing was written to ' +
      'it. Open it once for writing where it may be written, or read it with the version that wrote it.',
  );
}

export function readOnlyHere(file: LedgerFile): StorageError {
  const what = file.kind === 'missing' ? 'its folder' : 'the file or its folder';
  return new StorageError(
    `Cannot write the ledger at ${file.path}: this process may not write ${what}, so nothing was written. ` +
      'Check the permissions; reading it needs none of them.',
  );
}

/** SQLite's own word that the file is damaged (as opposed to locked, missing or not permitted). */
export function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}
