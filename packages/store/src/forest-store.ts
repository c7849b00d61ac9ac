// The union-find forest of each union-find compaction, and the topics sessions drop. A forest is
// written once, with its compaction, and never changed: it is the chain of the rows each compaction
// wrote (its state, the parent pointers it set, the snapshot of its clusters). Readers that only
// need one compaction's topics read that compaction's clusters and the document frequencies of a
// query's terms, never the chain, so a context costs the same at 1k turns and at 100k.

/** What one union-find compaction wrote about its forest. */
export interface ForestStateRecord {
  compactionId: string;
  sessionId: string;
  /** The union-find compaction whose forest this one continues; null: a fresh forest. */
  previousCompactionId: string | null;
  /** A flat compaction whose summary entered this forest as a node, if any. */
  seedCompactionId: string | null;
  /** The forest's settings (the forest package's ForestConfig). */
  config: unknown;
  clock: number;
  /** TF-IDF documents counted so far (cumulative). */
  documentCount: number;
  /** term → its cumulative document frequency, for the terms this compaction changed. */
  changedTerms: Record<string, number>;
}

/** A parent pointer a compaction set: a turn graduating, or a root merged into another cluster. */
export interface ForestNodeRecord {
  nodeId: string;
  parentId: string;
  kind: 'graduated' | 'merged';
}

/** One forest of a chain, with the parent pointers it set (in the order it set them). */
export interface ForestChainLink {
  state: ForestStateRecord;
  nodes: ForestNodeRecord[];
}

/** A cluster as of a compaction, with the block it is shown as in a context. */
export interface ForestClusterRecord {
  rootId: string;
  /** Stable root order. */
  position: number;
  members: number;
  memberTokens: number;
  summary: string | null;
  summaryVersion: number;
  block: string;
  blockTokens: number;
  dirty: boolean;
  pending: string[];
  absorbedSummaries: string[];
  /** Term weights, in term order. */
  centroid: Array<[string, number]>;
  firstTimestamp: number;
  lastTimestamp: number;
  touched: number;
  generation: number;
  dropped: boolean;
}

export interface ForestWrite {
  state: ForestStateRecord;
  /** In the order they were set. */
  nodes: readonly ForestNodeRecord[];
  clusters: readonly ForestClusterRecord[];
}

/** The TF-IDF statistics a query needs, as of one compaction. */
export interface DocumentFrequencies {
  documentCount: number;
  /** The asked terms any document held; a term absent here has frequency 0. */
  frequencies: Map<string, number>;
}

export interface TopicDropRecord {
  sessionId: string;
  clusterId: string;
  dropped: boolean;
  at: number;
}

/** A topic drop row and its place among every session's drops (the order they were recorded). */
export interface TopicDropRow extends TopicDropRecord {
  position: number;
}

/** What the forest's own integrity checks found (for `nexus doctor`). */
export interface ForestIntegrityFinding {
  code: 'FOREST_WITHOUT_COMPACTION' | 'FOREST_MISSING' | 'SELF_COMPACTION' | 'UNRESOLVED_ID' | 'NODE_NOT_COVERED';
  compactionId: string;
  nodeId: string | null;
}

export interface ForestStore {
  /**
   * Writes a compaction's forest: its state, nodes and clusters, and the document frequencies it
   * changed, so later reads of one term cost one lookup. Write-once: writing a compaction's forest
   * twice is refused. Call inside the transaction that appends the compaction turn.
   */
  writeForest(write: ForestWrite): Promise<void>;
  getForestState(compactionId: string): Promise<ForestStateRecord | undefined>;
  /** The parent pointers a compaction set, in the order it set them. */
  forestNodes(compactionId: string): Promise<ForestNodeRecord[]>;
  /**
   * The forests `compactionId`'s continues, newest first from it (following previousCompactionId),
   * each with its nodes, in a fixed number of queries however long the chain: what replaying a
   * forest reads. Stops before an id with no stored forest or one already listed (a loop); the
   * last link's previousCompactionId then says which ([] when `compactionId` has none).
   */
  forestChain(compactionId: string): Promise<ForestChainLink[]>;
  /** The clusters of one compaction, in root order. */
  forestClusters(compactionId: string): Promise<ForestClusterRecord[]>;
  /**
   * The document count and the cumulative document frequency of each of `terms` as of
   * `compactionId`'s forest (undefined when the compaction has no stored forest). Costs the terms
   * asked, not the forest's length.
   */
  documentFrequencies(compactionId: string, terms: readonly string[]): Promise<DocumentFrequencies | undefined>;
  recordTopicDrop(drop: TopicDropRecord): Promise<void>;
  /** Topic ids whose newest drop row in this session says dropped. */
  droppedTopics(sessionId: string): Promise<string[]>;
  /**
   * Every session's topic drop rows in the order they were recorded, `limit` at a time: the rows
   * after `afterPosition` (a row's `position`; from the first when absent). For a complete export.
   */
  topicDropPage(page: { afterPosition?: number; limit: number }): Promise<TopicDropRow[]>;
  /**
   * Forest rows that break the forest's invariants, ordered by compaction then node. Which
   * compactions must have a forest is the strategies' business, not the store's: `forestStrategies`
   * names the strategies whose compactions write one (a forest under any other compaction, or a
   * compaction of those strategies without one, is a finding).
   */
  forestIntegrityFindings(options: { forestStrategies: readonly string[] }): Promise<ForestIntegrityFinding[]>;
  /** The compactions with a stored forest that some session's head reads today, by id. */
  currentForestCompactions(): Promise<Array<{ compactionId: string; metadata: unknown }>>;
}
