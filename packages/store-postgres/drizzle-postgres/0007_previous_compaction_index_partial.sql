-- Only compactions fold in a previous compaction: the index on previous_compaction_id holds those
-- rows alone instead of a NULL entry for every normal turn (one more index page per append).
-- Lookups are `previous_compaction_id = $1`, which the partial index serves. As SQLite's 0015.
DROP INDEX "idx_turns_previous_compaction";--> statement-breakpoint
CREATE INDEX "idx_turns_previous_compaction" ON "agent_turns" USING btree ("previous_compaction_id") WHERE "agent_turns"."previous_compaction_id" IS NOT NULL;