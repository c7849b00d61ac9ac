// The ledger's operations on stored vectors, bound to one ledger: backfilling them (embedMissing)
// and searching by them (searchByMeaning), both with the ledger's Embedder.

import type { LedgerContext } from '../ledger-context.ts';
import { type EmbedMissingOptions, type EmbedMissingResult, embedMissing } from './embed-missing.ts';
import { type MeaningSearchOptions, type MeaningSearchResult, searchByMeaning } from './search-by-meaning.ts';

export interface EmbeddingOperations {
  embedMissing(options?: EmbedMissingOptions): Promise<EmbedMissingResult>;
  searchByMeaning(query: string, options?: MeaningSearchOptions): Promise<MeaningSearchResult>;
}

export function embeddingOperations(ledger: LedgerContext): EmbeddingOperations {
  return {
    embedMissing: (options) => embedMissing(ledger.store, ledger.embedder, options),
    searchByMeaning: (query, options) => searchByMeaning(ledger.store, ledger.embedder, { ...options, query }),
  };
}
