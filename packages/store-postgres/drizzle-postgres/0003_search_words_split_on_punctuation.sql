-- Issue 28: index the words SQLite indexes. Punctuation becomes a space before the english parser
-- reads search_text, so host names, versions, paths and hyphenated ids are indexed by their parts
-- (what core's searchTerms splits a query into), not as single tokens no query could match.
-- Rewrites both tables once (a stored generated column); the GIN indexes go with the old column.
ALTER TABLE "agent_turns" drop column "search_vector";--> statement-breakpoint
ALTER TABLE "agent_turns" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('english'::regconfig, regexp_replace(coalesce(search_text, ''), '[[:punct:]\u2000-\u206F\u3000-\u303F]+', ' ', 'g'))) STORED;--> statement-breakpoint
ALTER TABLE "events" drop column "search_vector";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('english'::regconfig, regexp_replace(coalesce(search_text, ''), '[[:punct:]\u2000-\u206F\u3000-\u303F]+', ' ', 'g'))) STORED;--> statement-breakpoint
CREATE INDEX "idx_turns_search" ON "agent_turns" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "idx_events_search" ON "events" USING gin ("search_vector");
