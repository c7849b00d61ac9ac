CREATE TABLE `forest_clusters` (
	`compaction_id` text NOT NULL,
	`root_id` text NOT NULL,
	`position` integer NOT NULL,
	`members` integer NOT NULL,
	`member_tokens` integer NOT NULL,
	`summary` text,
	`summary_version` integer NOT NULL,
	`block` text NOT NULL,
	`block_tokens` integer NOT NULL,
	`dirty` integer NOT NULL,
	`pending` text NOT NULL,
	`absorbed_summaries` text NOT NULL,
	`centroid` text NOT NULL,
	`first_timestamp` integer NOT NULL,
	`last_timestamp` integer NOT NULL,
	`touched` integer NOT NULL,
	`generation` integer NOT NULL,
	`dropped` integer NOT NULL,
	PRIMARY KEY(`compaction_id`, `root_id`),
	FOREIGN KEY (`compaction_id`) REFERENCES `forest_states`(`compaction_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`root_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `forest_nodes` (
	`compaction_id` text NOT NULL,
	`node_id` text NOT NULL,
	`parent_id` text NOT NULL,
	`kind` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`compaction_id`, `node_id`),
	FOREIGN KEY (`compaction_id`) REFERENCES `forest_states`(`compaction_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`node_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`parent_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "forest_node_not_compaction" CHECK("forest_nodes"."node_id" <> "forest_nodes"."compaction_id")
);
--> statement-breakpoint
CREATE TABLE `forest_states` (
	`compaction_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`previous_compaction_id` text,
	`seed_compaction_id` text,
	`config` text NOT NULL,
	`clock` integer NOT NULL,
	`document_count` integer NOT NULL,
	`changed_terms` text NOT NULL,
	FOREIGN KEY (`compaction_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`session_id`) REFERENCES `agent_sessions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`previous_compaction_id`) REFERENCES `forest_states`(`compaction_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`seed_compaction_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `topic_drops` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`cluster_id` text NOT NULL,
	`dropped` integer NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `agent_sessions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`cluster_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `idx_topic_drops_session` ON `topic_drops` (`session_id`,`cluster_id`);--> statement-breakpoint
ALTER TABLE `agent_sessions` ADD `compaction_strategy` text;