-- The events ledger is append-only, enforced by the database itself: no code path, and no
-- hand-written SQL either, can change or remove an event, or the record of which turn cited it.
CREATE TRIGGER `events_no_update` BEFORE UPDATE ON `events`
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `events_no_delete` BEFORE DELETE ON `events`
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed');
END;
--> statement-breakpoint
-- INSERT OR REPLACE deletes the conflicting row without firing DELETE triggers (unless
-- recursive_triggers is on, which a hand-opened connection may not have): refuse any insert that
-- would conflict, before conflict resolution runs.
CREATE TRIGGER `events_no_replace` BEFORE INSERT ON `events`
WHEN EXISTS (
  SELECT 1 FROM `events`
  WHERE `id` = NEW.`id`
     OR (`channel` = NEW.`channel` AND (`external_id` = NEW.`external_id` OR `seq` = NEW.`seq`))
)
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: an insert may not replace a stored event');
END;
--> statement-breakpoint
CREATE TRIGGER `turn_events_no_update` BEFORE UPDATE ON `turn_events`
BEGIN
  SELECT RAISE(ABORT, 'turn_events is append-only: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `turn_events_no_delete` BEFORE DELETE ON `turn_events`
BEGIN
  SELECT RAISE(ABORT, 'turn_events is append-only: DELETE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `turn_events_no_replace` BEFORE INSERT ON `turn_events`
WHEN EXISTS (SELECT 1 FROM `turn_events` WHERE `turn_id` = NEW.`turn_id` AND `event_id` = NEW.`event_id`)
BEGIN
  SELECT RAISE(ABORT, 'turn_events is append-only: an insert may not replace a stored link');
END;
