// @nexus/db: the store seam both ledgers use (docs/store.md). Engine-neutral interfaces and
// records, and the function that opens a store by location; the SQLite engine behind it.

export type { CopyLedgerCounts, CopyLedgerOptions, CopyLedgerProgress, CopyLedgerStage } from './copy-ledger.ts';
export { copyLedger } from './copy-ledger.ts';
export type { OpenLedgerStoreOptions } from './open-ledger-store.ts';
export { displayLocation, isPostgresLocation, openLedgerStore } from './open-ledger-store.ts';
export type { OpenPostgresStoreOptions } from './postgres/postgres-store.ts';
export { openPostgresStore } from './postgres/postgres-store.ts';
export type { OpenSqliteStoreOptions } from './sqlite/sqlite-store.ts';
export { openSqliteStore } from './sqlite/sqlite-store.ts';
export type {
  AppendEvents,
  AppendedEventRecord,
  EventKey,
  EventPageQuery,
  EventRecord,
  EventStore,
  EventTail,
} from './store/event-store.ts';
export type {
  DocumentFrequencies,
  ForestClusterRecord,
  ForestIntegrityFinding,
  ForestNodeRecord,
  ForestStateRecord,
  ForestStore,
  ForestWrite,
  TopicDropRecord,
  TopicDropRow,
} from './store/forest-store.ts';
export type { ImportStore, TranscriptLineRecord, TranscriptSourceRecord } from './store/import-store.ts';
export type { LedgerStore, StoreOperations } from './store/ledger-store.ts';
export type {
  CompactionPointers,
  LinePosition,
  MaintenanceStore,
  ScanPage,
  ToolCallingTurn,
} from './store/maintenance-store.ts';
export type { SessionRecord, StoredTurn, TurnEventLink, TurnRecord } from './store/records.ts';
export type {
  EventSearchFilters,
  EventSearchHit,
  EventSearchQuery,
  LineCompaction,
  LineSegment,
  ModelTurnEmbedding,
  SearchMatch,
  SearchPage,
  SearchStore,
  TurnEmbedding,
  TurnSearchFilters,
  TurnSearchHit,
  TurnSearchQuery,
} from './store/search-store.ts';
export { DatabaseBusyError } from './store/store-errors.ts';
export type {
  AppendOutcome,
  AppendToSession,
  ChainPageQuery,
  CoveringCompactionQuery,
  SessionSettingsUpdate,
  SessionStore,
  TurnStore,
} from './store/turn-store.ts';
