// Opening the ledgers a command asked for: one store per command, shared by both ledgers (one
// connection to the file, closed once). main.ts loads this module only for a command that runs, so
// `nexus --help` never loads a ledger.

import { type AgentsLedger, type AgentsLedgerOptions, createAgentsLedger } from '@agent-ledger/agents-ledger';
import { createEventsLedger, type EventsLedger } from '@agent-ledger/events-ledger';
import { type LedgerStore, type OpenLedgerStoreOptions, openLedgerStore } from '@agent-ledger/store';

export interface CommandLedgers {
  agents(options?: Omit<AgentsLedgerOptions, 'store'>): AgentsLedger;
  events(): EventsLedger;
  close(): Promise<void>;
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
