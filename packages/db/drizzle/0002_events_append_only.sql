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
CREATE TRIGGER `turn_events_no_update` BEFORE UPDATE ON `turn_events`
BEGIN
  SELECT RAISE(ABORT, 'turn_events is append-only: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `turn_events_no_delete` BEFORE DELETE ON `turn_events`
BEGIN
  SELECT RAISE(ABORT, 'turn_events is append-only: DELETE is not allowed');
END;
