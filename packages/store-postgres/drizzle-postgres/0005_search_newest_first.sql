-- A search ranks at most 1,000 matches (issue 28, store-postgres search-bounds.ts): when a word is
-- common, the newest, read backwards along these indexes with the text condition checked on each
-- row, so a page reads about a thousand rows instead of ranking every row holding the word. A word
-- few rows hold is still read from the text index (the planner chooses by its estimate). Built
-- once, in proportion to the ledger's size (about 3 s per million turns), before the store opens.
CREATE INDEX "idx_turns_timestamp" ON "agent_turns" USING btree ("timestamp");--> statement-breakpoint
CREATE INDEX "idx_events_received" ON "events" USING btree ("received_at");
