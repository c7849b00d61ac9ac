-- A forest is written once, with its compaction, and read as a chain of those rows: changing a row
-- would silently change what every later compaction and fork inherited. Drops are undone by a newer
-- row, not by editing the old one.
CREATE TRIGGER `forest_states_no_update` BEFORE UPDATE ON `forest_states`
BEGIN
  SELECT RAISE(ABORT, 'forest_states is write-once: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_states_no_delete` BEFORE DELETE ON `forest_states`
BEGIN
  SELECT RAISE(ABORT, 'forest_states is write-once: DELETE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_nodes_no_update` BEFORE UPDATE ON `forest_nodes`
BEGIN
  SELECT RAISE(ABORT, 'forest_nodes is write-once: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_nodes_no_delete` BEFORE DELETE ON `forest_nodes`
BEGIN
  SELECT RAISE(ABORT, 'forest_nodes is write-once: DELETE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_clusters_no_update` BEFORE UPDATE ON `forest_clusters`
BEGIN
  SELECT RAISE(ABORT, 'forest_clusters is write-once: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_clusters_no_delete` BEFORE DELETE ON `forest_clusters`
BEGIN
  SELECT RAISE(ABORT, 'forest_clusters is write-once: DELETE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `topic_drops_no_update` BEFORE UPDATE ON `topic_drops`
BEGIN
  SELECT RAISE(ABORT, 'topic_drops is write-once: UPDATE is not allowed');
END;
--> statement-breakpoint
CREATE TRIGGER `topic_drops_no_delete` BEFORE DELETE ON `topic_drops`
BEGIN
  SELECT RAISE(ABORT, 'topic_drops is write-once: DELETE is not allowed');
END;
--> statement-breakpoint
-- INSERT OR REPLACE deletes the conflicting row without firing the DELETE triggers above (unless
-- recursive_triggers is on): refuse any insert that would replace a stored row.
CREATE TRIGGER `forest_states_no_replace` BEFORE INSERT ON `forest_states`
WHEN EXISTS (SELECT 1 FROM `forest_states` WHERE `compaction_id` = NEW.`compaction_id`)
BEGIN
  SELECT RAISE(ABORT, 'forest_states is write-once: an insert may not replace a stored row');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_nodes_no_replace` BEFORE INSERT ON `forest_nodes`
WHEN EXISTS (SELECT 1 FROM `forest_nodes` WHERE `compaction_id` = NEW.`compaction_id` AND `node_id` = NEW.`node_id`)
BEGIN
  SELECT RAISE(ABORT, 'forest_nodes is write-once: an insert may not replace a stored row');
END;
--> statement-breakpoint
CREATE TRIGGER `forest_clusters_no_replace` BEFORE INSERT ON `forest_clusters`
WHEN EXISTS (SELECT 1 FROM `forest_clusters` WHERE `compaction_id` = NEW.`compaction_id` AND `root_id` = NEW.`root_id`)
BEGIN
  SELECT RAISE(ABORT, 'forest_clusters is write-once: an insert may not replace a stored row');
END;
--> statement-breakpoint
CREATE TRIGGER `topic_drops_no_replace` BEFORE INSERT ON `topic_drops`
WHEN NEW.`id` IS NOT NULL AND EXISTS (SELECT 1 FROM `topic_drops` WHERE `id` = NEW.`id`)
BEGIN
  SELECT RAISE(ABORT, 'topic_drops is write-once: an insert may not replace a stored row');
END;
