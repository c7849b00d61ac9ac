// Search on SQLite, assembled: FTS5 over agent_turns (turn-search.ts: turns_fts for normal turns,
// compactions_fts for compaction summaries, read together) and events (event-search.ts: events_fts),
// ranked by bm25 (the store's score is bm25 negated: higher is better), keyset-paged on
// (bm25, rowid), what one search ranks bounded in search-plan.ts (@agent-ledger/store search-bounds.ts); and the turns'
// embedding vectors (embedding-queries.ts: turn_embeddings, one float32 blob per turn and model).

import type { SearchStore } from '@agent-ledger/store';
import { putEmbeddingsTransaction, turnEmbeddingPage, turnEmbeddings, turnsWithoutEmbedding } from './embedding-queries.ts';
import { searchEvents } from './event-search.ts';
import { nearestTurns } from './nearest-turns.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';
import { countTurnMatches, searchTurns } from './turn-search.ts';

function countTurns(connection: SqliteConnection): number {
  return (connection.statement('SELECT count(*) AS n FROM agent_turns').get() as { n: number }).n;
}

export function searchQueries(connection: SqliteConnection): Synchronous<SearchStore> {
  const putEmbeddings = putEmbeddingsTransaction(connection);
  return {
    searchTurns: (query) => searchTurns(connection, query),
    searchEvents: (query) => searchEvents(connection, query),
    countTurnMatches: (match) => countTurnMatches(connection, match),
    countTurns: () => countTurns(connection),
    turnsWithoutEmbedding: (model, line) => turnsWithoutEmbedding(connection, model, line),
    putTurnEmbeddings: (model, embeddings) => {
      if (embeddings.length > 0) putEmbeddings(model, embeddings);
    },
    turnEmbeddingPage: (page) => turnEmbeddingPage(connection, page),
    turnEmbeddings: (model, line) => turnEmbeddings(connection, model, line),
    nearestTurns: (query) => nearestTurns(connection, query),
  };
}
