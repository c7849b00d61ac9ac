// The columns of a forest state row as ForestStateRecord names them, for the single read and the chain.

export const FOREST_STATE_COLUMNS =
  'compaction_id AS "compactionId", session_id AS "sessionId", previous_compaction_id AS "previousCompactionId", ' +
  'seed_compaction_id AS "seedCompactionId", config, clock::float8 AS clock, document_count::float8 AS "documentCount", ' +
  'changed_terms AS "changedTerms"';
