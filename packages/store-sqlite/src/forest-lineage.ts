// A forest's lineage on SQLite (forest_lineages, forest_terms: migration 0011): the run of forests
// one session wrote one after another, numbered by `sequence`, with the document frequencies each
// forest changed. Reading a term's frequency as of one compaction is then a seek per lineage on its
// line, never a walk of the compaction chain.

import type { DocumentFrequencies, PreviousLineage } from '@agent-ledger/store';
import type { SqliteConnection } from './sqlite-connection.ts';

const LINEAGE_OF =
  'SELECT l.lineage_id AS lineageId, l.lineage_parent_id AS lineageParentId, l.sequence, s.session_id AS sessionId, ' +
  's.document_count AS documentCount, ' +
  '(SELECT MAX(m.sequence) FROM forest_lineages m WHERE m.lineage_id = l.lineage_id) AS tip ' +
  'FROM forest_lineages l JOIN forest_states s ON s.compaction_id = l.compaction_id WHERE l.compaction_id = ?';
const TERM_AT =
  'SELECT document_frequency AS documentFrequency FROM forest_terms ' +
  'WHERE lineage_id = ? AND term = ? AND sequence <= ? ORDER BY sequence DESC LIMIT 1';

/** A forest's place in its lineage, with the lineage's document count as of it. */
export type LineageRow = PreviousLineage & { documentCount: number };

export function lineageOf(connection: SqliteConnection, compactionId: string): LineageRow | undefined {
  return connection.statement(LINEAGE_OF).get(compactionId) as LineageRow | undefined;
}

export function documentFrequencies(
  connection: SqliteConnection,
  compactionId: string,
  terms: readonly string[],
): DocumentFrequencies | undefined {
  let lineage = lineageOf(connection, compactionId);
  if (!lineage) return undefined;
  const result: DocumentFrequencies = { documentCount: lineage.documentCount, frequencies: new Map() };
  let remaining = [...new Set(terms)];
  const termAt = connection.statement(TERM_AT);
  // One seek per term in each lineage the forest continues (a lineage per fork on its line).
  while (lineage && remaining.length > 0) {
    const missing: string[] = [];
    for (const term of remaining) {
      const row = termAt.get(lineage.lineageId, term, lineage.sequence) as { documentFrequency: number } | undefined;
      if (row) result.frequencies.set(term, row.documentFrequency);
      else missing.push(term);
    }
    remaining = missing;
    lineage = lineage.lineageParentId === null ? undefined : lineageOf(connection, lineage.lineageParentId);
  }
  return result;
}
