-- Issue 28: PostgreSQL indexes and weighs the words SQLite does. The english configuration dropped
-- stop words (`the`, `which`, `does`): a query's stop words matched nothing there, where FTS5 finds
-- and ranks them, and a row's length for bm25 left them out. nexus_english is english with the same
-- Snowball stemmer and no stop-word list. Rewrites both tables once (a stored generated column);
-- the GIN indexes go with the old column and are built again.
CREATE TEXT SEARCH DICTIONARY nexus_english_stem (TEMPLATE = snowball, LANGUAGE = english);--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION nexus_english (COPY = english);--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION nexus_english ALTER MAPPING REPLACE english_stem WITH nexus_english_stem;--> statement-breakpoint
ALTER TABLE "agent_turns" drop column "search_vector";--> statement-breakpoint
ALTER TABLE "agent_turns" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('nexus_english'::regconfig, regexp_replace(coalesce(search_text, ''), '[[:punct:]\u2000-\u206F\u3000-\u303F]+', ' ', 'g'))) STORED;--> statement-breakpoint
ALTER TABLE "events" drop column "search_vector";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('nexus_english'::regconfig, regexp_replace(coalesce(search_text, ''), '[[:punct:]\u2000-\u206F\u3000-\u303F]+', ' ', 'g'))) STORED;--> statement-breakpoint
CREATE INDEX "idx_turns_search" ON "agent_turns" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "idx_events_search" ON "events" USING gin ("search_vector");
