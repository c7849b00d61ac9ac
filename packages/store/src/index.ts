// @agent-ledger/store: the store seam both ledgers use (docs/store.md). Engine-neutral interfaces and
// records, the function that opens a store by location (loading the engine's package: see
// load-engine.ts), and copying a ledger between stores. The contract an engine must pass is the
// `@agent-ledger/store/contract` entry.

export { mergedChainRanges } from './chain-ranges.ts';
export type { CopyLedgerCounts, CopyLedgerOptions, CopyLedgerProgress, CopyLedgerStage } from './copy-ledger.ts';
export { copyLedger } from './copy-ledger.ts';
export type {
  AppendEvents,
  AppendedEventRecord,
  EventKey,
  EventPageQuery,
  EventRecord,
  EventStore,
  EventTail,
} from './event-store.ts';
export { type ChainNodeRow, linkForestChain } from './forest-chain.ts';
export { type LineagePlace, lineagePlaceOf, type PreviousLineage } from './forest-lineage.ts';
export type {
  DocumentFrequencies,
  ForestChainLink,
  ForestClusterRecord,
  ForestIntegrityFinding,
  ForestNodeRecord,
  ForestStateRecord,
  ForestStore,
  ForestWrite,
  TopicDropRecord,
  TopicDropRow,
} from './forest-store.ts';
export type { ImportStore, TranscriptLineRecord, TranscriptPosition, TranscriptSourceRecord } from './import-store.ts';
export { isLeaseHolderGone, newLeaseHolder, takeLease } from './lease-holder.ts';
export type { LeaseRequest, LeaseStore } from './lease-store.ts';
export type { LedgerStore, StoreOperations } from './ledger-store.ts';
export { CLOSED, STORE_OPERATION_NAMES } from './ledger-store.ts';
export type { PostgresEngineModule, SqliteEngineModule } from './load-engine.ts';
export { ENGINE_PACKAGES } from './load-engine.ts';
export type {
  CompactionPointers,
  LinePosition,
  MaintenanceStore,
  ScanPage,
  ToolCallingTurn,
} from './maintenance-store.ts';
export { nearestFirst, vectorFromBytes } from './nearest-order.ts';
export type { OpenLedgerStoreOptions } from './open-ledger-store.ts';
export { displayLocation, isPostgresLocation, openLedgerStore } from './open-ledger-store.ts';
export type { SessionRecord, StoredTurn, TurnEventLink, TurnRecord } from './records.ts';
export { BM25_B, BM25_K1, bm25Idf, bm25Term } from './search-bm25.ts';
export { COMMON_WORD_ROWS, RANKED_ROWS } from './search-bounds.ts';
export { MATCH_START, MATCH_STOP, SNIPPET_WORDS, snippetOfHighlight } from './search-snippet.ts';
export type {
  EventSearchFilters,
  EventSearchHit,
  EventSearchQuery,
  LineCompaction,
  LineSegment,
  ModelTurnEmbedding,
  NearestTurn,
  NearestTurnsQuery,
  SearchMatch,
  SearchPage,
  SearchStore,
  TurnEmbedding,
  TurnSearchFilters,
  TurnSearchHit,
  TurnSearchQuery,
} from './search-store.ts';
export { checkSealed, DatabaseBusyError, StoreEngineMissingError } from './store-errors.ts';
export type { HashedTurnRow, SessionHeadRow, SessionPage, TurnChainStore } from './turn-chain-store.ts';
export { hashesInOrder, TURN_HASH_VERSION, type TurnHashInput, turnHash } from './turn-hash.ts';
export type {
  AppendOutcome,
  AppendToSession,
  ChainPageQuery,
  ChainRange,
  CoveringCompactionQuery,
  LineStart,
  LineStartQuery,
  SessionSettingsUpdate,
  SessionStore,
  TurnStore,
  TurnWithCompaction,
} from './turn-store.ts';
export { placeTurnWithCompaction } from './turn-with-compaction.ts';
