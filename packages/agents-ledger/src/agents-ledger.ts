// The agents ledger's public face: one object with every operation, built from one options
// object. The operations themselves live in their own modules; this file wires them together.

import {
  type CompactionTurn,
  type Embedder,
  EventNotFoundError,
  estimateTokenCounter,
  generateId,
  type IdGenerator,
  InvalidInputError,
  type NormalTurn,
  type Session,
  type TokenCounter,
  type Turn,
} from '@agent-ledger/core';
import type { ForestConfig } from '@agent-ledger/forest';
import { type LedgerStore, openLedgerStore } from '@agent-ledger/store';
import { createExtractiveSummarizer, type Summarizer } from '@agent-ledger/summarizers';
import type { AppendTurnInput } from './append-turn.ts';
import { type BuildContextOptions, type BuiltContext, buildContext } from './build-context.ts';
import { type CalibrationReport, calibrateSession } from './calibrate-session.ts';
import { type CompactOptions, type ContextUsage, compact, contextUsage } from './compact.ts';
import { buildHybridContext } from './context/hybrid-context.ts';
import { semanticQuery } from './context/semantic-query.ts';
import { checkLedger, type Problem } from './doctor.ts';
import { HeadCache } from './head-cache.ts';
import {
  findCompactionThatSummarized,
  findLatestCompaction,
  getFullHistory,
  getSummarizedTurns,
  type HistoryOptions,
} from './history.ts';
import { type TranscriptImports, transcriptImports } from './import/transcript-imports.ts';
import type { LedgerContext } from './ledger-context.ts';
import { type RecordCompactionInput, recordCompaction } from './record-compaction.ts';
import type { EmbeddingFailure } from './retrieval/append-embeddings.ts';
import { appendOperations } from './retrieval/appends-with-vectors.ts';
import type { EmbedMissingOptions, EmbedMissingResult } from './retrieval/embed-missing.ts';
import { embeddingOperations } from './retrieval/embedding-operations.ts';
import { type RecallRanking, type RecallRankingOptions, recallRanking } from './retrieval/recall-ranking.ts';
import { type Retrieval, type RetrieveOptions, retrieveTurns } from './retrieval/retrieve-turns.ts';
import type { MeaningSearchOptions, MeaningSearchResult } from './retrieval/search-by-meaning.ts';
import { canonicalCompaction } from './search/canon.ts';
import { searchTurns, type TurnSearchOptions, type TurnSearchResult } from './search/search-turns.ts';
import { SessionQueue } from './session-queue.ts';
import {
  type CreateSessionInput,
  createSession,
  type Fork,
  type ForkOptions,
  forkFrom,
  getSession,
  type ListSessionsOptions,
  listSessions,
  type SessionTree,
  tree,
} from './sessions.ts';
import { requireTurnRow } from './store/chain.ts';
import { requireEvents, turnsWithEventLinks } from './store/event-links.ts';
import { registerStore } from './store-registry.ts';
import { type CompactionStrategy, STRATEGY_CONTRACT_VERSION } from './strategies/compaction-strategy.ts';
import { createFlatStrategy, FLAT } from './strategies/flat/flat-strategy.ts';
import {
  expandTopic,
  findTopic,
  listTopics,
  setTopicDropped,
  type Topic,
  type TopicOfTurn,
} from './strategies/union-find/topic-operations.ts';
import { createUnionFindStrategy } from './strategies/union-find/union-find-strategy.ts';
import { checkTurnChains, type TurnChainReport } from './turn-chain/check-turn-chains.ts';
import { checkTurnsAgainstCheckpoint, type SessionHeadMark, takeTurnsCheckpoint } from './turn-chain/turns-checkpoint.ts';

export interface AgentsLedgerOptions {
  /** Where turns live (openLedgerStore from @agent-ledger/store); the events ledger may share it. */
  store: LedgerStore;
  /** Writes compaction summaries; the offline extractive summarizer by default. */
  summarizer?: Summarizer;
  tokenCounter?: TokenCounter;
  /** Extra strategies by name; `flat` and `union-find` are always there. */
  strategies?: CompactionStrategy[];
  /** The strategy of sessions that name none (`flat` unless set). */
  defaultStrategy?: string;
  /** Settings for new union-find forests: mergeThreshold (0.15), maxClusters (10), maxCentroidTerms (256). */
  forest?: Partial<ForestConfig>;
  now?: () => number;
  generateId?: IdGenerator;
  /**
   * An embedding model for recall: the hybrid context then ranks turns by cosine similarity too,
   * fused with bm25 (docs/context.md#embeddings). Off by default; bm25 alone is the measured default.
   */
  embedder?: Embedder;
  /**
   * With an embedder: each appended turn's vector is stored right after its append, in the
   * background (an append never waits for the embedder, nor fails because of it). Off by default:
   * a context embeds what it needs when it needs it, and embedMissing (`nexus embed`) backfills.
   */
  embedOnAppend?: boolean;
  /** Told when embedding appended turns failed, with the turns left without a vector (embedMissing stores them). */
  onEmbeddingFailure?: (failure: EmbeddingFailure) => void;
  /**
   * How long a compaction's lease on its session holds without renewal, in ms (60,000): another
   * process compacting the same session waits for it, and a crashed compactor blocks the session no
   * longer than this.
   */
  compactionLeaseMs?: number;
}

export interface AgentsLedger {
  readonly tokenCounter: TokenCounter;
  /**
   * What the ledger records about imported transcripts (sources, lines, resume positions, the
   * import lease): an importer writes these through the ledger (import/transcript-imports.ts).
   */
  readonly imports: TranscriptImports;
  createSession(input?: CreateSessionInput): Promise<Session>;
  getSession(sessionId: string): Promise<Session>;
  listSessions(options?: ListSessionsOptions): Promise<Session[]>;
  appendTurn(sessionId: string, input: AppendTurnInput): Promise<NormalTurn>;
  /** Appends several turns in one transaction: all of them, or none. */
  appendTurns(sessionId: string, inputs: readonly AppendTurnInput[]): Promise<NormalTurn[]>;
  getTurn(turnId: string): Promise<Turn>;
  /** Several turns by id in one read, in the order asked; ids with no turn are left out. */
  getTurns(turnIds: readonly string[]): Promise<Turn[]>;
  /** The turns that cite an event (eventIds given at append), oldest first. */
  turnsCiting(eventId: string): Promise<string[]>;
  buildContext(turnId: string, options?: BuildContextOptions): Promise<BuiltContext>;
  /** Every turn up to `turnId`, root first; with `ownTurnsOnly`, only those its session wrote. */
  getFullHistory(turnId: string, options?: HistoryOptions): AsyncGenerator<Turn>;
  getSummarizedTurns(compactionTurnId: string): Promise<Turn[]>;
  findLatestCompaction(turnId: string): Promise<CompactionTurn | null>;
  findCompactionThatSummarized(turnId: string, options?: { sessionId?: string }): Promise<CompactionTurn | null>;
  forkFrom(turnId: string, options?: ForkOptions): Promise<Fork>;
  tree(sessionId: string): Promise<SessionTree>;
  contextUsage(sessionId: string): Promise<ContextUsage>;
  /**
   * Records what a model API reported about a prompt that was too long (its count, its maximum)
   * against the ledger's estimate of it, and rescales the session's settings to fit; a restart and
   * forks keep it (calibrate-session.ts). Returns the session with its new settings.
   */
  calibrate(sessionId: string, report: CalibrationReport): Promise<Session>;
  /** True when the session's context is over `contextWindow - reserveTokens`. */
  shouldCompact(sessionId: string): Promise<boolean>;
  compact(sessionId: string, options?: CompactOptions): Promise<CompactionTurn>;
  /**
   * Records a compaction made elsewhere (an imported transcript's): the given summary and cut,
   * written as `compact` writes one, with no summarizer call and no shrink check.
   */
  recordCompaction(sessionId: string, input: RecordCompactionInput): Promise<CompactionTurn>;
  /** Full-text search over every turn, compacted or not (resolved view by default). */
  search(query: string, options?: TurnSearchOptions): Promise<TurnSearchResult>;
  /** The topmost compaction standing in for a turn on a session's line, or null when none has summarized it. */
  canon(turnId: string, options?: { sessionId?: string }): Promise<CompactionTurn | null>;
  /**
   * The turns on the line up to `atTurnId` that best match a query (bm25), each reply with the turn
   * it answers, within a token budget: plain retrieval over raw turns.
   */
  retrieve(atTurnId: string, options: RetrieveOptions): Promise<Retrieval>;
  /**
   * The turns on the line up to `atTurnId` that the hybrid context's recall would bring for a query,
   * best first with their values, before any budget (searches, speakers, dates, stored vectors with
   * an Embedder, neighbours): what the ledger remembers about it (docs/context.md#recall).
   */
  recall(atTurnId: string, options: RecallRankingOptions): Promise<RecallRanking>;
  /**
   * Embeds and stores, with the ledger's Embedder, every normal turn that has no vector for it yet
   * (of every session, or of one session's line), a batch per write: a run that stops keeps what it
   * stored. Contexts then need no embedding call for those turns (docs/context.md#embeddings).
   */
  embedMissing(options?: EmbedMissingOptions): Promise<EmbedMissingResult>;
  /**
   * The turns whose stored vectors (of the ledger's Embedder) are nearest the query's, by cosine
   * similarity; reads only, so turns not embedded yet are counted, not found.
   */
  searchByMeaning(query: string, options?: MeaningSearchOptions): Promise<MeaningSearchResult>;
  /** With embedOnAppend: resolves once every turn appended so far has its vector stored or its failure reported. */
  flushEmbeddings(): Promise<void>;
  /** The topics (union-find clusters) of the newest compaction on a session's line; [] without one. */
  topics(sessionId: string): Promise<Topic[]>;
  /** The topic standing for a turn (find), and the compaction covering it. */
  findTopic(turnId: string, options?: { sessionId?: string }): Promise<TopicOfTurn>;
  /** A topic's member turns, oldest first (expand). The session of the topic's root turn by default. */
  expandTopic(clusterId: string, options?: { sessionId?: string }): Promise<Turn[]>;
  /** Stops injecting a topic into the session's contexts; recorded, undone by restoreTopic. */
  dropTopic(clusterId: string, options?: { sessionId?: string }): Promise<Topic>;
  restoreTopic(clusterId: string, options?: { sessionId?: string }): Promise<Topic>;
  /**
   * Checks stored invariants (search index, compaction pointers, every turn's hash-chain link and
   * every session's head); returns problems, repairs nothing.
   */
  doctor(): Promise<Problem[]>;
  /** Recomputes every turn's hash and checks every session's head: the chain part of doctor, with counts. */
  verifyTurnChains(): Promise<TurnChainReport>;
  /** Each session's head (id, depth, hash) now: keep it elsewhere and verify against it later. */
  checkpoint(): Promise<SessionHeadMark[]>;
  /** Sessions of a checkpoint that were removed, emptied, cut short, moved back or rewritten since. */
  verifyCheckpoint(sessions: readonly SessionHeadMark[]): Promise<Problem[]>;
  /** The engine's own check of its files (SQLite: PRAGMA quick_check): null when it finds nothing. */
  checkStorage(): Promise<{ engine: LedgerStore['engine']; problem: string | null }>;
  /** Closes the store (and so every ledger sharing it). */
  close(): Promise<void>;
}

export function createAgentsLedger(options: AgentsLedgerOptions): AgentsLedger {
  const tokenCounter = options.tokenCounter ?? estimateTokenCounter;
  const strategies = registerStrategies([
    createFlatStrategy(),
    createUnionFindStrategy({ forest: options.forest }),
    ...(options.strategies ?? []),
  ]);
  const ledger: LedgerContext = {
    store: options.store,
    tokenCounter,
    summarizer: options.summarizer ?? createExtractiveSummarizer({ tokenCounter }),
    strategies,
    defaultStrategy: options.defaultStrategy ?? FLAT,
    appendQueue: new SessionQueue(),
    heads: new HeadCache(),
    now: options.now ?? Date.now,
    generateId: options.generateId ?? generateId,
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.compactionLeaseMs !== undefined ? { compactionLeaseMs: options.compactionLeaseMs } : {}),
  };
  const appends = appendOperations(ledger, options);
  const agents: AgentsLedger = {
    tokenCounter,
    imports: transcriptImports(options.store),
    createSession: async (input) => createSession(ledger, input),
    getSession: async (sessionId) => getSession(ledger, sessionId),
    calibrate: async (sessionId, report) => calibrateSession(ledger, sessionId, report),
    listSessions: async (listOptions) => listSessions(ledger, listOptions),
    ...appends.operations,
    getTurn: async (turnId) => (await turnsWithEventLinks(ledger.store, [await requireTurnRow(ledger.store, turnId)]))[0] as Turn,
    getTurns: async (turnIds) => turnsInOrder(ledger, turnIds),
    turnsCiting: async (eventId) => {
      if (typeof eventId !== 'string') throw new EventNotFoundError(String(eventId));
      await requireEvents(ledger.store, [eventId]);
      return ledger.store.turnsCitingEvent(eventId);
    },
    buildContext: async (turnId, contextOptions) =>
      contextOptions?.retrieval
        ? buildHybridContext(
            ledger,
            turnId,
            contextOptions,
            await appends.settled().then(() => semanticQuery(ledger, ledger.embedder, turnId, contextOptions.query)),
          )
        : buildContext(ledger, turnId, contextOptions),
    getFullHistory: (turnId, historyOptions) => getFullHistory(ledger, turnId, historyOptions),
    getSummarizedTurns: async (compactionTurnId) => getSummarizedTurns(ledger, compactionTurnId),
    findLatestCompaction: async (turnId) => findLatestCompaction(ledger, turnId),
    findCompactionThatSummarized: async (turnId, findOptions) => findCompactionThatSummarized(ledger, turnId, findOptions),
    forkFrom: async (turnId, forkOptions = {}) => forkFrom(ledger, turnId, forkOptions),
    tree: async (sessionId) => tree(ledger, sessionId),
    contextUsage: async (sessionId) => contextUsage(ledger, sessionId),
    shouldCompact: async (sessionId) => (await contextUsage(ledger, sessionId)).shouldCompact,
    compact: (sessionId, compactOptions) => compact(ledger, sessionId, compactOptions),
    recordCompaction: async (sessionId, input) => recordCompaction(ledger, sessionId, input),
    search: async (query, searchOptions) => searchTurns(ledger, query, searchOptions),
    doctor: async () => [...(await checkLedger(ledger)), ...(await checkTurnChains(ledger.store)).problems],
    verifyTurnChains: () => checkTurnChains(ledger.store),
    checkpoint: () => takeTurnsCheckpoint(ledger.store),
    verifyCheckpoint: (sessions) => checkTurnsAgainstCheckpoint(ledger.store, sessions),
    checkStorage: async () => ({ engine: options.store.engine, problem: await options.store.checkStorageIntegrity() }),
    retrieve: async (atTurnId, retrieveOptions) => retrieveTurns(ledger, atTurnId, retrieveOptions),
    recall: (atTurnId, recallOptions) => appends.settled().then(() => recallRanking(ledger, atTurnId, recallOptions)),
    ...embeddingOperations(ledger),
    topics: async (sessionId) => listTopics(ledger, sessionId),
    findTopic: async (turnId, topicOptions) => findTopic(ledger, turnId, topicOptions?.sessionId),
    expandTopic: async (clusterId, topicOptions) => expandTopic(ledger, clusterId, topicOptions?.sessionId),
    dropTopic: async (clusterId, topicOptions) => setTopicDropped(ledger, clusterId, true, topicOptions?.sessionId),
    restoreTopic: async (clusterId, topicOptions) => setTopicDropped(ledger, clusterId, false, topicOptions?.sessionId),
    canon: async (turnId, canonOptions) => canonicalCompaction(ledger, turnId, canonOptions?.sessionId),
    close: () => appends.settled().then(() => options.store.close()),
  };
  registerStore(agents, options.store);
  return agents;
}

/** The turns of `turnIds` that exist, in that order, with the events each cites. */
async function turnsInOrder(ledger: LedgerContext, turnIds: readonly string[]): Promise<Turn[]> {
  const rows = await ledger.store.getTurns(turnIds);
  return turnsWithEventLinks(
    ledger.store,
    turnIds.flatMap((id) => rows.get(id) ?? []),
  );
}

/**
 * The strategies by name, later ones replacing earlier ones of the same name. A strategy written for
 * another version of the strategy contract is refused: it would misread or miswrite what strategies
 * persist beside their compaction turns.
 */
function registerStrategies(list: readonly CompactionStrategy[]): Map<string, CompactionStrategy> {
  const strategies = new Map<string, CompactionStrategy>();
  for (const strategy of list) {
    if (strategy.contractVersion !== STRATEGY_CONTRACT_VERSION) {
      throw new InvalidInputError(
        `Compaction strategy ${JSON.stringify(strategy.name)} implements strategy contract version ` +
          `${String(strategy.contractVersion)}, but this ledger speaks version ${STRATEGY_CONTRACT_VERSION}; ` +
          'update the strategy (or the ledger) so both speak the same version.',
        'strategies',
      );
    }
    strategies.set(strategy.name, strategy);
  }
  return strategies;
}

/** How `openAgentsLedger` opens the file: read-only, or refusing one that does not exist. */
export type OpenAgentsLedgerOptions = Omit<AgentsLedgerOptions, 'store'> & { readonly?: boolean; mustExist?: boolean };

/**
 * Opens the ledger at `location` (a SQLite file path), with migrations applied; creates it unless
 * `mustExist` or `readonly` (which also skips migrations and every write).
 */
export function openAgentsLedger(location: string, options: OpenAgentsLedgerOptions = {}): AgentsLedger {
  const { readonly, mustExist, ...ledgerOptions } = options;
  return createAgentsLedger({ ...ledgerOptions, store: openLedgerStore(location, { readonly, mustExist }) });
}
