-- Turns are append-only in the database itself, as events are (0002): no code path and no
-- hand-written SQL can change or remove a stored turn. The one column that used to change
-- (has_children) is derived on read instead (a child is the session's next depth, or a fork's
-- turn), and a chain's depth is unique per session, as reading a chain by depth range assumes.
DROP INDEX `idx_turns_session_depth`;--> statement-breakpoint
CREATE UNIQUE INDEX `idx_turns_session_depth` ON `agent_turns` (`session_id`,`depth`);--> statement-breakpoint
ALTER TABLE `agent_turns` DROP COLUMN `has_children`;--> statement-breakpoint
CREATE INDEX `idx_sessions_forked_from` ON `agent_sessions` (`forked_from_turn_id`);--> statement-breakpoint
CREATE TRIGGER `agent_turns_no_update` BEFORE UPDATE ON `agent_turns`
BEGIN
  SELECT RAISE(ABORT, 'turns are append-only: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `agent_turns_no_delete` BEFORE DELETE ON `agent_turns`
BEGIN
  SELECT RAISE(ABORT, 'turns are append-only: DELETE is not allowed');
END;
--> statement-breakpoint
-- INSERT OR REPLACE removes the conflicting row before its DELETE trigger can run on a connection
-- without recursive_triggers: refuse an insert that would replace a stored turn.
CREATE TRIGGER `agent_turns_no_replace` BEFORE INSERT ON `agent_turns`
WHEN EXISTS (SELECT 1 FROM `agent_turns` WHERE `id` = NEW.`id`)
BEGIN
  SELECT RAISE(ABORT, 'turns are append-only: an insert may not replace a stored turn');
END;
