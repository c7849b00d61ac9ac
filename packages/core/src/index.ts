export { canonicalJson, MAX_PAYLOAD_DEPTH } from './canonical-json.ts';
export type { ContentBlock, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock } from './content.ts';
export { contentText, toContentBlocks, toolResultIds, toolResultText, toolUseIds } from './content.ts';
export type { Embedder } from './embedder.ts';
export { cosineSimilarity } from './embedder.ts';
export {
  ClusterNotFoundError,
  CompactionWouldNotShrinkError,
  ContextOverflowError,
  DatabaseNotFoundError,
  databaseNotFoundReason,
  EmptySessionError,
  EventNotFoundError,
  ForestIntegrityError,
  HeadConflictError,
  InvalidInputError,
  LedgerError,
  MessageTooLargeError,
  ModelError,
  NothingToCompactError,
  PayloadTooLargeError,
  SearchSyntaxError,
  SessionNotFoundError,
  StorageError,
  SummarizerError,
  TurnNotFoundError,
} from './errors.ts';
export type { LedgerEvent } from './event.ts';
export type { IdGenerator, IdKind } from './ids.ts';
export { generateId, sequentialIds } from './ids.ts';
export { invalidCursorError } from './search-cursor.ts';
export { contentTerms, MAX_SEARCH_TERMS, requireSearchText, searchTerms } from './search-query.ts';
export type { Session, SessionCalibration, SessionSettings } from './session.ts';
export { DEFAULT_SESSION_SETTINGS } from './session.ts';
export { assertStorableText, toStorableText, unstorableTextIndex } from './storable-text.ts';
export type { TokenCounter } from './tokens.ts';
export { countContentTokens, countMessagesTokens, estimateTokenCounter, MESSAGE_OVERHEAD_TOKENS } from './tokens.ts';
export type { CompactionTrigger, CompactionTurn, NormalTurn, SummarizerUsage, Turn, TurnType } from './turn.ts';
export { isCompaction } from './turn.ts';
export { STOPWORDS, WORD_PATTERN } from './words.ts';
