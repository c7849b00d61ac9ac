CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`external_id` text NOT NULL,
	`author` text,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	`seq` integer NOT NULL,
	`prev_hash` text,
	`hash` text NOT NULL,
	CONSTRAINT "seq_positive" CHECK("events"."seq" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `idx_events_channel_external` ON `events` (`channel`,`external_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `idx_events_channel_seq` ON `events` (`channel`,`seq`);--> statement-breakpoint
CREATE INDEX `idx_events_channel_occurred` ON `events` (`channel`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `turn_events` (
	`turn_id` text NOT NULL,
	`event_id` text NOT NULL,
	PRIMARY KEY(`turn_id`, `event_id`),
	FOREIGN KEY (`turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `idx_turn_events_event` ON `turn_events` (`event_id`);