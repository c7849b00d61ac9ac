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
