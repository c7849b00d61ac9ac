// Search on PostgreSQL: the generated `search_vector` (tsvector, english) of agent_turns and events
// with their GIN indexes, ranked by ts_rank_cd normalized by length (higher is better; for turns
// searched by words, each word's weighted by its rarity: search-ranking.ts), keyset-paged on (score,
// then the older row first: timestamp or receivedAt, then id: search-cursor.ts); snippets by
// ts_headline for the hits shown (search-snippets.ts); and the turns' embedding vectors
// (embedding-queries.ts). The semantics are sqlite/search-queries.ts's. The tsquery of a match is
// built in search-tsquery.ts, the turn search in turn-search.ts, the event search in event-search.ts;
// what one search ranks is bounded in search-plan.ts (@agent-ledger/store search-bounds.ts).

import type { SearchStore } from '@agent-ledger/store';
import { putTurnEmbeddings, turnEmbeddingPage, turnEmbeddings, turnsWithoutEmbedding } from './embedding-queries.ts';
import { searchEvents } from './event-search.ts';
import { nearestTurns } from './nearest-turns.ts';
import type { PgExecutor } from './pg-executor.ts';
import { countTurnMatches, countTurns, searchTurns } from './turn-search.ts';

export function searchQueries(db: PgExecutor): SearchStore {
  return {
    searchTurns: (query) => searchTurns(db, query),
    searchEvents: (query) => searchEvents(db, query),
    countTurnMatches: (match) => countTurnMatches(db, match),
    countTurns: () => countTurns(db),
    turnsWithoutEmbedding: (model, line) => turnsWithoutEmbedding(db, model, line),
    putTurnEmbeddings: (model, embeddings) => putTurnEmbeddings(db, model, embeddings),
    turnEmbeddingPage: (page) => turnEmbeddingPage(db, page),
    turnEmbeddings: (model, line) => turnEmbeddings(db, model, line),
    nearestTurns: (query) => nearestTurns(db, query),
  };
}
