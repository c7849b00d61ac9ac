CREATE TABLE `transcript_lines` (
	`source_key` text NOT NULL,
	`line_id` text NOT NULL,
	`turn_id` text,
	PRIMARY KEY(`source_key`, `line_id`),
	FOREIGN KEY (`source_key`) REFERENCES `transcript_sources`(`source_key`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `transcript_sources` (
	`source_key` text PRIMARY KEY NOT NULL,
	`format` text NOT NULL,
	`session_id` text NOT NULL,
	`path` text,
	`imported_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `agent_sessions`(`id`) ON UPDATE no action ON DELETE no action
);
