-- Turns are hash-chained as events are: each turn's hash covers its parent's hash and its content
-- (@agent-ledger/store turn-hash.ts), so a change to a stored turn is found even by someone who can
-- drop the append-only triggers. Older turns get their hashes when a writer first opens the file
-- (the store computes them: SQL cannot), so the one update a turn may ever get is its missing hash,
-- once; every other update is still refused.
ALTER TABLE `agent_turns` ADD `hash` text;--> statement-breakpoint
-- The older turns' hashes are still to be made: the first writer to open the file makes them and
-- drops this table in the same transaction (backfill-turn-hashes.ts). A hash missing later is
-- then never filled in again: it is evidence of tampering, for doctor to report.
CREATE TABLE `turn_hashes_pending` (`id` integer PRIMARY KEY);--> statement-breakpoint
DROP TRIGGER `agent_turns_no_update`;--> statement-breakpoint
CREATE TRIGGER `agent_turns_no_update` BEFORE UPDATE ON `agent_turns`
WHEN OLD.`hash` IS NOT NULL OR NEW.`hash` IS NULL
  OR (NEW.`id`, NEW.`session_id`, NEW.`parent_turn_id`, NEW.`depth`, NEW.`role`, NEW.`content`, NEW.`model`, NEW.`token_count`, NEW.`timestamp`, NEW.`tool_call_count`, NEW.`metadata`, NEW.`turn_type`, NEW.`summary`, NEW.`summarized_through_turn_id`, NEW.`first_kept_turn_id`, NEW.`tokens_before`, NEW.`tokens_after`, NEW.`trigger`, NEW.`strategy`, NEW.`summarizer`, NEW.`usage_input_tokens`, NEW.`usage_output_tokens`, NEW.`latest_compaction_id`, NEW.`cumulative_tokens`, NEW.`search_text`, NEW.`covers_from_depth`, NEW.`previous_compaction_id`, NEW.`summarized_through_depth`) IS NOT
     (OLD.`id`, OLD.`session_id`, OLD.`parent_turn_id`, OLD.`depth`, OLD.`role`, OLD.`content`, OLD.`model`, OLD.`token_count`, OLD.`timestamp`, OLD.`tool_call_count`, OLD.`metadata`, OLD.`turn_type`, OLD.`summary`, OLD.`summarized_through_turn_id`, OLD.`first_kept_turn_id`, OLD.`tokens_before`, OLD.`tokens_after`, OLD.`trigger`, OLD.`strategy`, OLD.`summarizer`, OLD.`usage_input_tokens`, OLD.`usage_output_tokens`, OLD.`latest_compaction_id`, OLD.`cumulative_tokens`, OLD.`search_text`, OLD.`covers_from_depth`, OLD.`previous_compaction_id`, OLD.`summarized_through_depth`)
BEGIN
  SELECT RAISE(ABORT, 'turns are append-only: UPDATE is not allowed');
END;
