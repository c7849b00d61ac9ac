// The one interface under both ledgers. Every read and write of the agents and events ledgers goes
// through a LedgerStore; nothing above the store packages knows a table, a SQL dialect or a driver.
//
// It is shaped for an engine with a connection pool, row locks and real concurrency, not only for
// SQLite's one connection:
// - `transaction(work)` hands `work` its own handle (`tx`); every read and write of the
//   transaction goes through it (on a pool, the handle is the connection holding the transaction).
//   Using the outer store inside `work` is an error, never a silent second connection.
// - The writes that must be atomic are single operations (`appendToSession`: insert + head
//   compare-and-set; `appendEvents`: idempotency, seq and hash chain), so a caller plans with no I/O
//   and writes once; a conflict comes back as a value to retry on, not as a half-written state.
// - Search and cursors are engine-neutral: words and options in, opaque cursors out.
//
// What a second engine must implement is this interface, checked by `runStoreContract` (@agent-ledger/store/contract).

import type { EventStore } from './event-store.ts';
import type { ForestStore } from './forest-store.ts';
import type { ImportStore } from './import-store.ts';
import type { LeaseStore } from './lease-store.ts';
import type { MaintenanceStore } from './maintenance-store.ts';
import type { SearchStore } from './search-store.ts';
import type { TurnChainStore } from './turn-chain-store.ts';
import type { SessionStore, TurnStore } from './turn-store.ts';

/** Every operation of a store; what a transaction's handle offers. */
export interface StoreOperations
  extends SessionStore,
    TurnStore,
    EventStore,
    SearchStore,
    ForestStore,
    ImportStore,
    LeaseStore,
    MaintenanceStore,
    TurnChainStore {}

export interface LedgerStore extends StoreOperations {
  /** `sqlite` or `postgres`. */
  readonly engine: string;
  /** Where the ledger lives: a file path, or a URL without its password. */
  readonly location: string;
  readonly readonly: boolean;
  /**
   * Runs `work` in one transaction that takes the write lock up front: all of it is written, or
   * none. Every read and write inside must go through `tx`.
   */
  transaction<T>(work: (tx: StoreOperations) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Every operation's name, for code that wraps a store operation by operation (the deferred store,
 * an engine's error mapping). The check below fails to compile when an operation is missing.
 */
export const STORE_OPERATION_NAMES = [
  'getSession',
  'listSessions',
  'childSessions',
  'insertSession',
  'updateSessionSettings',
  'getTurn',
  'getTurns',
  'turnWithCompaction',
  'lineStart',
  'chainPage',
  'chainRanges',
  'appendToSession',
  'compactionsFolding',
  'compactionCovering',
  'eventIdsByTurn',
  'turnsCitingEvent',
  'missingEventIds',
  'appendEvents',
  'getEvent',
  'eventPage',
  'eventAtSeq',
  'channelTail',
  'eventChannels',
  'checkEventSearchIndex',
  'searchTurns',
  'searchEvents',
  'countTurnMatches',
  'countTurns',
  'turnsWithoutEmbedding',
  'putTurnEmbeddings',
  'turnEmbeddingPage',
  'turnEmbeddings',
  'nearestTurns',
  'writeForest',
  'getForestState',
  'forestNodes',
  'forestChain',
  'forestClusters',
  'documentFrequencies',
  'recordTopicDrop',
  'droppedTopics',
  'topicDropPage',
  'forestIntegrityFindings',
  'currentForestCompactions',
  'getTranscriptSource',
  'insertTranscriptSource',
  'transcriptLineTurns',
  'recordTranscriptLines',
  'transcriptSourcePage',
  'transcriptLinePage',
  'turnAtTime',
  'getTranscriptPosition',
  'putTranscriptPosition',
  'acquireLease',
  'leaseHolder',
  'releaseLease',
  'checkStorageIntegrity',
  'checkTurnSearchIndex',
  'compactionPointers',
  'toolCallingTurns',
  'sessionsForkedAt',
  'hashedTurns',
  'sessionHeads',
] as const satisfies ReadonlyArray<keyof StoreOperations>;

type UnlistedOperation = Exclude<keyof StoreOperations, (typeof STORE_OPERATION_NAMES)[number]>;
const everyOperationListed: [UnlistedOperation] extends [never] ? true : UnlistedOperation = true;
void everyOperationListed;

/** What an operation on a closed store says (the ledgers share one store: closing either closes it). */
export const CLOSED =
  'This ledger store is closed (closing either ledger closes the store they share): open it again to read or write.';
