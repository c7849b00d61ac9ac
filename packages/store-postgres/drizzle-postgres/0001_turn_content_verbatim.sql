-- A turn's content and metadata read back exactly as written: jsonb reorders object keys (a tool_use
-- input came back with its keys sorted), json keeps the text. Both hold the same values.
ALTER TABLE "agent_turns" ALTER COLUMN "content" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "agent_turns" ALTER COLUMN "metadata" SET DATA TYPE json;