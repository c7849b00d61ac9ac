// Opening the ledgers a command asked for: one store per command, shared by both ledgers (one
// connection to the file, closed once), opened the way the command uses it. main.ts loads this
// module only for a command that runs, so `nexus --help` never loads a ledger.

import { statSync } from 'node:fs';
import { type AgentsLedger, type AgentsLedgerOptions, createAgentsLedger } from '@agent-ledger/agents-ledger';
import { createEventsLedger, type EventsLedger } from '@agent-ledger/events-ledger';
import { isPostgresLocation, type LedgerStore, type OpenLedgerStoreOptions, openLedgerStore } from '@agent-ledger/store';
import { UsageError } from './arguments.ts';

export interface CommandLedgers {
  agents(options?: Omit<AgentsLedgerOptions, 'store'>): AgentsLedger;
  events(): EventsLedger;
  close(): Promise<void>;
}

/**
 * How a command uses the ledger. `read`: it never writes, so it opens read-only (a file that is
 * not a ledger, or is older than this version, is refused, and nothing is written to any file).
 * `check`: doctor, which writes nothing either but runs FTS5's integrity-check, an INSERT command
 * SQLite refuses on a read-only connection. `write`: the ledger is created when missing.
 */
export type LedgerUse = 'read' | 'check' | 'write';

/**
 * Before a write command's first write, a ledger file up to this size is read whole by PRAGMA
 * quick_check, so a damaged page anywhere refuses the write. Measured: 80 ms at 10,000 turns (20 MB),
 * 0.8 s at 100,000 (180 MB). Above it every command would pay most of a second, so a larger file
 * gets the checks of every opening (header, length, schema) and `nexus doctor` runs the full one.
 */
export const INTEGRITY_CHECK_MAX_BYTES = 32 * 1024 * 1024;

/** The opening options for `use` of the ledger at `location`. */
export function ledgerOpening(location: string, use: LedgerUse): OpenLedgerStoreOptions {
  refuseTemporaryLedger(location);
  // A PostgreSQL ledger is a server's, not a file: reads must find one (and migrate it, as before).
  if (isPostgresLocation(location)) return use === 'write' ? {} : { mustExist: true };
  // A ledger written by an older nexus is migrated before it is read (after the checks of a write).
  const checkIntegrity = fileSize(location) <= INTEGRITY_CHECK_MAX_BYTES;
  if (use === 'read') return { readonly: true, upgrade: true, checkIntegrity };
  if (use === 'check') return { inspect: true, upgrade: true, checkIntegrity };
  return { checkIntegrity };
}

/**
 * SQLite opens '' as a temporary file and ':memory:' in memory: a command would report what it
 * wrote, exit 0, and lose it all at once. The library allows them (tests use them); the CLI never.
 */
function refuseTemporaryLedger(location: string): void {
  const name = location.trim();
  if (name !== '' && name !== ':memory:') return;
  const what = name === '' ? 'an empty path, which SQLite opens as a temporary database' : ':memory:, an in-memory database';
  throw new UsageError(
    `the ledger location (--db or $NEXUS_DB) is ${what}: it is deleted when the command ends, so nothing would persist (and a read would find nothing). ` +
      'Give a ledger file (--db ./nexus.db, or set $NEXUS_DB) or a postgres:// URL.',
  );
}

function fileSize(location: string): number {
  const file = location.startsWith('file://') ? decodeURIComponent(location.slice('file://'.length)) : location;
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Ledgers at `location`, opened on first use; `opening` is decided when the store is first opened. */
export function commandLedgers(location: string, opening: () => OpenLedgerStoreOptions): CommandLedgers {
  let store: LedgerStore | null = null;
  let agents: AgentsLedger | null = null;
  let events: EventsLedger | null = null;
  const openStore = () => {
    store ??= openLedgerStore(location, opening());
    return store;
  };
  return {
    agents: (options) => {
      agents ??= createAgentsLedger({ ...options, store: openStore() });
      return agents;
    },
    events: () => {
      events ??= createEventsLedger({ store: openStore() });
      return events;
    },
    close: async () => {
      await store?.close();
    },
  };
}
