-- Turns are hash-chained as events are: each turn's hash covers its parent's hash and its content
-- (@agent-ledger/store turn-hash.ts), so a change to a stored turn is found even by someone who can
-- disable the append-only triggers. Older turns get their hashes when a writer first opens the
-- database (the store computes them: SQL cannot), so the one update a turn may ever get is its
-- missing hash, once; every other update, and every delete, is still refused.
ALTER TABLE "agent_turns" ADD COLUMN "hash" text;--> statement-breakpoint
-- The older turns' hashes are still to be made: the migrating process makes them and drops this
-- table in the same transaction (backfill-turn-hashes.ts). A hash missing later is then never
-- filled in again: it is evidence of tampering, for doctor to report.
CREATE TABLE "turn_hashes_pending" ("id" integer PRIMARY KEY);--> statement-breakpoint
CREATE OR REPLACE FUNCTION nexus_turn_hash_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Every column but the hash compared by hand: generated columns are not computed yet in a BEFORE
  -- trigger's NEW, and json has no equality (compared as text).
  IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL
    AND ROW(NEW.id, NEW.session_id, NEW.parent_turn_id, NEW.depth, NEW.role, NEW.content::text, NEW.model, NEW.token_count, NEW.timestamp, NEW.tool_call_count, NEW.metadata::text, NEW.turn_type, NEW.summary, NEW.summarized_through_turn_id, NEW.first_kept_turn_id, NEW.tokens_before, NEW.tokens_after, NEW.trigger, NEW.strategy, NEW.summarizer, NEW.usage_input_tokens, NEW.usage_output_tokens, NEW.latest_compaction_id, NEW.cumulative_tokens, NEW.search_text, NEW.covers_from_depth, NEW.previous_compaction_id, NEW.summarized_through_depth)
      IS NOT DISTINCT FROM ROW(OLD.id, OLD.session_id, OLD.parent_turn_id, OLD.depth, OLD.role, OLD.content::text, OLD.model, OLD.token_count, OLD.timestamp, OLD.tool_call_count, OLD.metadata::text, OLD.turn_type, OLD.summary, OLD.summarized_through_turn_id, OLD.first_kept_turn_id, OLD.tokens_before, OLD.tokens_after, OLD.trigger, OLD.strategy, OLD.summarizer, OLD.usage_input_tokens, OLD.usage_output_tokens, OLD.latest_compaction_id, OLD.cumulative_tokens, OLD.search_text, OLD.covers_from_depth, OLD.previous_compaction_id, OLD.summarized_through_depth) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'agent_turns is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;--> statement-breakpoint
DROP TRIGGER "agent_turns_append_only" ON "agent_turns";--> statement-breakpoint
CREATE TRIGGER "agent_turns_append_only" BEFORE UPDATE OR DELETE ON "agent_turns" FOR EACH ROW EXECUTE FUNCTION nexus_turn_hash_once();
