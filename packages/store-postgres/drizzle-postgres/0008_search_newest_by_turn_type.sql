-- A common word's newest matches are read backwards along an age index (0005), the text condition
-- checked on each row met. Over every turn, that walk met the summaries newer than the turns too and
-- checked each one's large, compressed tsvector: on 100k turns imported, then compacted (every
-- summary newer than every turn), a search of turns read 2,255 summaries before its first turn, 15
-- ms where the walk along its own turn type takes 3. Keyed by turn type first, a search reads its
-- own type; a search of both reads each apart and merges them (search-plan.ts). Built once, in
-- proportion to the ledger's size, before the store opens.
DROP INDEX "idx_turns_timestamp";--> statement-breakpoint
CREATE INDEX "idx_turns_type_timestamp" ON "agent_turns" USING btree ("turn_type","timestamp");