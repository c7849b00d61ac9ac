// How a forest state row reads on SQLite (JSON columns parsed), for the single read and the chain.

import type { ForestStateRecord } from '@agent-ledger/store';
import { parseJson } from './sqlite-connection.ts';

export const STATE_COLUMNS =
  'compaction_id AS compactionId, session_id AS sessionId, previous_compaction_id AS previousCompactionId, ' +
  'seed_compaction_id AS seedCompactionId, config, clock, document_count AS documentCount, changed_terms AS changedTerms';

export function decodeState(row: Record<string, unknown>): ForestStateRecord {
  const state = row as unknown as ForestStateRecord;
  state.config = parseJson(row.config);
  state.changedTerms = parseJson(row.changedTerms) as Record<string, number>;
  return state;
}
