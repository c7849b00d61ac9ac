export { DatabaseBusyError, fromDriverError, withSearchErrors } from './driver-errors.ts';
export type { LedgerDatabase, LedgerDrizzle, OpenDatabaseOptions } from './open-database.ts';
export { openDatabase } from './open-database.ts';
export type { AgentSessionRow, AgentTurnRow, EventRow, ForestClusterRow, ForestStateRow, NewAgentTurnRow } from './schema.ts';
export {
  agentSessions,
  agentTurns,
  events,
  forestClusters,
  forestNodes,
  forestStates,
  topicDrops,
  turnEvents,
} from './schema.ts';
export type { OpenSqliteStoreOptions } from './sqlite/sqlite-store.ts';
export { legacyDatabaseOf, openSqliteStore } from './sqlite/sqlite-store.ts';
export type { EventStore } from './store/event-store.ts';
export type { ForestStore } from './store/forest-store.ts';
export type { ImportStore } from './store/import-store.ts';
export type { LedgerStore, StoreOperations } from './store/ledger-store.ts';
export type { MaintenanceStore } from './store/maintenance-store.ts';
export type { SessionRecord, StoredTurn, TurnEventLink, TurnRecord } from './store/records.ts';
export type { SearchStore } from './store/search-store.ts';
export type {
  AppendOutcome,
  AppendToSession,
  ChainPageQuery,
  CoveringCompactionQuery,
  SessionSettingsUpdate,
  SessionStore,
  TurnStore,
} from './store/turn-store.ts';
export type { TurnWrites } from './turn-writes.ts';
export { turnWrites } from './turn-writes.ts';
export type { OpenLedgerStoreOptions } from './open-ledger-store.ts';
export { openLedgerStore } from './open-ledger-store.ts';
export type { AppendedEventRecord, AppendEvents, EventKey, EventPageQuery, EventRecord, EventTail } from './store/event-store.ts';
export type { TranscriptLineRecord, TranscriptSourceRecord } from './store/import-store.ts';
export type { CompactionPointers, LinePosition, ScanPage, ToolCallingTurn } from './store/maintenance-store.ts';
