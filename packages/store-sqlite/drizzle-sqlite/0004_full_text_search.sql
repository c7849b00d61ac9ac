-- Full-text search over turns (messages and compaction summaries) and events. Both are FTS5
-- external-content tables over the `search_text` columns: the text is stored once, in the row,
-- and the index is written by triggers in the same transaction as the row, so the two cannot
-- disagree after a crash (checked by `nexus doctor`).
CREATE VIRTUAL TABLE `turns_fts` USING fts5(
  search_text,
  content = 'agent_turns',
  content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `agent_turns_fts_insert` AFTER INSERT ON `agent_turns`
BEGIN
  INSERT INTO `turns_fts` (rowid, search_text) VALUES (NEW.rowid, NEW.search_text);
END;
--> statement-breakpoint
-- Turns written before this migration get their text from their content blocks or summary.
UPDATE `agent_turns` SET `search_text` = CASE
  WHEN `turn_type` = 'compaction' THEN `summary`
  ELSE (
    SELECT group_concat(coalesce(json_extract(value, '$.text'), json_extract(value, '$.content'), json_extract(value, '$.input')), char(10))
    FROM json_each(`agent_turns`.`content`)
  )
END
WHERE `search_text` IS NULL;
--> statement-breakpoint
INSERT INTO `turns_fts` (`turns_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `events_fts` USING fts5(
  search_text,
  content = 'events',
  content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `events_fts_insert` AFTER INSERT ON `events`
BEGIN
  INSERT INTO `events_fts` (rowid, search_text) VALUES (NEW.rowid, NEW.search_text);
END;
--> statement-breakpoint
-- Events written before this migration: search_text is derived (not hashed), so filling it in is
-- the one change to stored events a migration may make; the guard is lifted for that statement only.
DROP TRIGGER `events_no_update`;
--> statement-breakpoint
UPDATE `events` SET `search_text` = trim(coalesce(`author`, '') || ' ' || coalesce(json_extract(`payload`, '$.text'), `payload`))
WHERE `search_text` IS NULL;
--> statement-breakpoint
CREATE TRIGGER `events_no_update` BEFORE UPDATE ON `events`
BEGIN
  SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed');
END;
--> statement-breakpoint
INSERT INTO `events_fts` (`events_fts`) VALUES ('rebuild');
