-- Compaction summaries get a full-text index of their own (compactions_fts); turns_fts keeps the
-- normal turns only. Search reads both, so it finds what it found before. Why: bm25's statistics
-- (how many rows hold a word, how long rows are) were taken over summaries too, and every
-- compaction re-renders the summary lines it keeps, so one fact line stood in hundreds of
-- compaction rows of a long session: the words that matter most counted as common, and recall
-- over the raw turns ranked them low (LongMemEval, thousands of compactions: 82.6% of the evidence
-- at 1,000 tokens without the summaries in the statistics against 77.8% with them).
-- Both stay external-content tables over views of agent_turns, written by triggers in the row's
-- own transaction, so `nexus doctor`'s integrity check still compares each index with its rows.
DROP TRIGGER `agent_turns_fts_insert`;
--> statement-breakpoint
DROP TABLE `turns_fts`;
--> statement-breakpoint
CREATE VIEW `normal_turn_texts` AS
  SELECT `rowid` AS `turn_rowid`, `search_text` FROM `agent_turns` WHERE `turn_type` = 'normal';
--> statement-breakpoint
CREATE VIEW `compaction_texts` AS
  SELECT `rowid` AS `turn_rowid`, `search_text` FROM `agent_turns` WHERE `turn_type` = 'compaction';
--> statement-breakpoint
CREATE VIRTUAL TABLE `turns_fts` USING fts5(
  search_text,
  content = 'normal_turn_texts',
  content_rowid = 'turn_rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `compactions_fts` USING fts5(
  search_text,
  content = 'compaction_texts',
  content_rowid = 'turn_rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `agent_turns_fts_insert` AFTER INSERT ON `agent_turns` WHEN NEW.`turn_type` = 'normal'
BEGIN
  INSERT INTO `turns_fts` (rowid, search_text) VALUES (NEW.rowid, NEW.search_text);
END;
--> statement-breakpoint
CREATE TRIGGER `agent_turns_compactions_fts_insert` AFTER INSERT ON `agent_turns` WHEN NEW.`turn_type` = 'compaction'
BEGIN
  INSERT INTO `compactions_fts` (rowid, search_text) VALUES (NEW.rowid, NEW.search_text);
END;
--> statement-breakpoint
INSERT INTO `turns_fts` (`turns_fts`) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO `compactions_fts` (`compactions_fts`) VALUES ('rebuild');
