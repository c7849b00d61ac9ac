-- A common word's newest matches are read backwards along an age index (0005), the text condition
-- checked on each row met. Over every turn, that walk met the summaries newer than the turns too and
-- checked each one's large, compressed tsvector: on 100k turns imported, then compacted (every
-- summary newer than every turn), a search of turns read 2,255 summaries before its first turn, 15
-- ms where the walk over turns alone takes 3. One index per turn type: a search reads its own type;
-- a search of both reads each apart and merges them (search-plan.ts). Partial indexes, not one keyed
-- by (turn_type, timestamp): the planner costs a walk by its first column's correlation with the
-- table's order, and chose to read every match of three common words from the text index instead
-- (a million turns: 114 ms where the walk takes about 50). A normal turn is still one entry in one
-- of them. Built once, in proportion to the ledger's size, before the store opens.
DROP INDEX "idx_turns_timestamp";--> statement-breakpoint
CREATE INDEX "idx_turns_timestamp_normal" ON "agent_turns" USING btree ("timestamp") WHERE "agent_turns"."turn_type" = 'normal';--> statement-breakpoint
CREATE INDEX "idx_turns_timestamp_compaction" ON "agent_turns" USING btree ("timestamp") WHERE "agent_turns"."turn_type" = 'compaction';