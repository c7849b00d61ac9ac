-- Doctor's scans on PostgreSQL (src/postgres/maintenance-queries.ts): every compaction in
-- (session_id, depth) order, paged by that key. A partial index holds only compaction rows, so the
-- scan reads the compactions, not every turn; a normal turn's insert only evaluates the predicate.
-- Idempotent: applied every time the store opens (under the migration lock).

CREATE INDEX IF NOT EXISTS idx_turns_compactions_by_line ON agent_turns (session_id, depth) WHERE turn_type = 'compaction';
