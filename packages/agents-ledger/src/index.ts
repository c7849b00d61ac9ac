export type { AgentsLedger, AgentsLedgerOptions, OpenAgentsLedgerOptions } from './agents-ledger.ts';
export { createAgentsLedger, openAgentsLedger } from './agents-ledger.ts';
export type { AppendTurnInput } from './append-turn.ts';
export type { BuildContextOptions, BuiltContext, MissingVectors, RetrievalPolicy } from './build-context.ts';
export type { CalibrationReport } from './calibrate-session.ts';
export { CALIBRATION_MARGIN, calibratedSettings, providerPromptLimit, unusableWindow } from './calibrate-session.ts';
export type { CompactOptions, ContextUsage } from './compact.ts';
export { defaultSummaryTokens } from './compact.ts';
export { type Cut, chooseCut, requireCut } from './compaction/choose-cut.ts';
export { assembleContext, CONTINUATION_MARKER, toMessages } from './context/assemble-context.ts';
export { DEFAULT_MIN_RELEVANCE, DEFAULT_RETRIEVAL_MAX_TOKENS, DEFAULT_RETRIEVAL_SHARE } from './context/hybrid-context.ts';
export { INTERRUPTED_TOOL_RESULT, pairToolCalls } from './context/pair-tool-calls.ts';
export type { Problem } from './doctor.ts';
export type { HistoryOptions } from './history.ts';
export type { Conversation, ConversationMessage, ConversationQuestion } from './import/conversation-file.ts';
export { parseConversation, validateConversation } from './import/conversation-file.ts';
export type { ImportOptions, ImportResult } from './import/import-conversation.ts';
export { importConversation } from './import/import-conversation.ts';
export { importableContent } from './import/message-content.ts';
export type { TranscriptImports } from './import/transcript-imports.ts';
export type { RecordCompactionInput } from './record-compaction.ts';
export type { EmbeddingFailure } from './retrieval/append-embeddings.ts';
export type { EmbedMissingOptions, EmbedMissingResult, EmbedProgress } from './retrieval/embed-missing.ts';
export type { RecalledCandidate, RecallRanking, RecallRankingOptions } from './retrieval/recall-ranking.ts';
export type { RecallTuning } from './retrieval/recall-turns.ts';
export { DEFAULT_RECALL_TUNING } from './retrieval/recall-turns.ts';
export { RECALL_HEADER } from './retrieval/render-recalled.ts';
export type { Retrieval, RetrievedPiece, RetrieveOptions } from './retrieval/retrieve-turns.ts';
export { RETRIEVAL_HEADER, renderRetrievedTurn } from './retrieval/retrieve-turns.ts';
export type { MeaningHit, MeaningSearchOptions, MeaningSearchResult } from './retrieval/search-by-meaning.ts';
export type { EventSearch, RecallHit, RecallToolInput, RecallToolOptions } from './search/recall-tool.ts';
export { createRecallToolHandler, RECALL_TOOL_NAME, recallToolDefinition } from './search/recall-tool.ts';
export type { TurnHit, TurnSearchOptions, TurnSearchResult } from './search/search-turns.ts';
export type { CreateSessionInput, Fork, ForkOptions, ListSessionsOptions, SessionTree } from './sessions.ts';
export type {
  CompactionInput,
  CompactionPlan,
  CompactionStrategy,
  ContextSummary,
  ForkRequest,
  RenderableCompaction,
  StateRequest,
  StrategyEnvironment,
  SummaryRequest,
} from './strategies/compaction-strategy.ts';
export { DEFAULT_TOPIC_SHARE, type InjectedTopic, STRATEGY_CONTRACT_VERSION } from './strategies/compaction-strategy.ts';
export { createFlatStrategy } from './strategies/flat/flat-strategy.ts';
export { type FittedTopic, fitTopics, type TopicToFit, trimmedHeader } from './strategies/union-find/fit-topics.ts';
export type { TopicRecord } from './strategies/union-find/forest-store.ts';
export type { Topic, TopicOfTurn } from './strategies/union-find/topic-operations.ts';
export type { ForestOutcome, UnionFindOptions } from './strategies/union-find/union-find-strategy.ts';
export { createUnionFindStrategy } from './strategies/union-find/union-find-strategy.ts';
export { renderSummaryBlock } from './summary-block.ts';
export type { TurnChainReport } from './turn-chain/check-turn-chains.ts';
export { parseSessionHeadMarks, type SessionHeadMark } from './turn-chain/turns-checkpoint.ts';
