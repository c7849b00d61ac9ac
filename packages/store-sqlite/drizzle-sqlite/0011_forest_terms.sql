CREATE TABLE `forest_lineages` (
	`compaction_id` text PRIMARY KEY NOT NULL,
	`lineage_id` text NOT NULL,
	`lineage_parent_id` text,
	`sequence` integer NOT NULL,
	FOREIGN KEY (`compaction_id`) REFERENCES `forest_states`(`compaction_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`lineage_parent_id`) REFERENCES `forest_states`(`compaction_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `idx_forest_lineages_sequence` ON `forest_lineages` (`lineage_id`,`sequence`);--> statement-breakpoint
CREATE TABLE `forest_terms` (
	`lineage_id` text NOT NULL,
	`term` text NOT NULL,
	`sequence` integer NOT NULL,
	`document_frequency` integer NOT NULL,
	PRIMARY KEY(`lineage_id`, `term`, `sequence`)
);
--> statement-breakpoint
-- Forests stored before this migration: their lineages (a forest continues its previous one's
-- lineage when both belong to one session: a session's forests form one line), then the document
-- frequencies each wrote, from forest_states.changed_terms.
WITH RECURSIVE `walk`(`compaction_id`, `session_id`, `lineage_id`, `lineage_parent_id`, `sequence`) AS (
  SELECT `compaction_id`, `session_id`, `compaction_id`, `previous_compaction_id`, 0
  FROM `forest_states` WHERE `previous_compaction_id` IS NULL
  UNION ALL
  SELECT s.`compaction_id`, s.`session_id`,
    CASE WHEN s.`session_id` = w.`session_id` THEN w.`lineage_id` ELSE s.`compaction_id` END,
    CASE WHEN s.`session_id` = w.`session_id` THEN w.`lineage_parent_id` ELSE w.`compaction_id` END,
    CASE WHEN s.`session_id` = w.`session_id` THEN w.`sequence` + 1 ELSE 0 END
  FROM `forest_states` s JOIN `walk` w ON s.`previous_compaction_id` = w.`compaction_id`
)
INSERT INTO `forest_lineages` (`compaction_id`, `lineage_id`, `lineage_parent_id`, `sequence`)
SELECT `compaction_id`, `lineage_id`, `lineage_parent_id`, `sequence` FROM `walk`;
--> statement-breakpoint
INSERT INTO `forest_terms` (`lineage_id`, `term`, `sequence`, `document_frequency`)
SELECT l.`lineage_id`, j.`key`, l.`sequence`, j.`value`
FROM `forest_states` s JOIN `forest_lineages` l ON l.`compaction_id` = s.`compaction_id`, json_each(s.`changed_terms`) j;
--> statement-breakpoint
-- Written once with their forest, like the forest's other rows (0006).
CREATE TRIGGER `forest_lineages_no_update` BEFORE UPDATE ON `forest_lineages`
BEGIN
  SELECT RAISE(ABORT, 'forest_lineages is write-once: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_lineages_no_delete` BEFORE DELETE ON `forest_lineages`
BEGIN
  SELECT RAISE(ABORT, 'forest_lineages is write-once: DELETE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_lineages_no_replace` BEFORE INSERT ON `forest_lineages`
WHEN EXISTS (SELECT 1 FROM `forest_lineages` WHERE `compaction_id` = NEW.`compaction_id`)
BEGIN
  SELECT RAISE(ABORT, 'forest_lineages is write-once: an insert may not replace a stored row');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_terms_no_update` BEFORE UPDATE ON `forest_terms`
BEGIN
  SELECT RAISE(ABORT, 'forest_terms is write-once: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_terms_no_delete` BEFORE DELETE ON `forest_terms`
BEGIN
  SELECT RAISE(ABORT, 'forest_terms is write-once: DELETE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_terms_no_replace` BEFORE INSERT ON `forest_terms`
WHEN EXISTS (SELECT 1 FROM `forest_terms` WHERE `lineage_id` = NEW.`lineage_id` AND `term` = NEW.`term` AND `sequence` = NEW.`sequence`)
BEGIN
  SELECT RAISE(ABORT, 'forest_terms is write-once: an insert may not replace a stored row');
END;
