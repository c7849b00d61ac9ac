CREATE TABLE `agent_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`label` text,
	`head_turn_id` text,
	`parent_session_id` text,
	`forked_from_turn_id` text,
	`rebuild_from_raw` integer DEFAULT false NOT NULL,
	`ignore_compactions_through_depth` integer,
	`context_window` integer NOT NULL,
	`reserve_tokens` integer NOT NULL,
	`keep_recent_tokens` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`head_turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`parent_session_id`) REFERENCES `agent_sessions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`forked_from_turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `idx_sessions_parent` ON `agent_sessions` (`parent_session_id`);--> statement-breakpoint
CREATE INDEX `idx_sessions_created` ON `agent_sessions` (`created_at`);--> statement-breakpoint
CREATE TABLE `agent_turns` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`parent_turn_id` text,
	`depth` integer NOT NULL,
	`role` text,
	`content` text,
	`model` text,
	`token_count` integer NOT NULL,
	`timestamp` integer NOT NULL,
	`has_children` integer DEFAULT false NOT NULL,
	`tool_call_count` integer DEFAULT 0 NOT NULL,
	`metadata` text,
	`turn_type` text DEFAULT 'normal' NOT NULL,
	`summary` text,
	`summarized_through_turn_id` text,
	`first_kept_turn_id` text,
	`tokens_before` integer,
	`tokens_after` integer,
	`trigger` text,
	`strategy` text,
	`summarizer` text,
	`usage_input_tokens` integer,
	`usage_output_tokens` integer,
	`latest_compaction_id` text,
	`cumulative_tokens` integer NOT NULL,
	`covers_from_depth` integer,
	`previous_compaction_id` text,
	`summarized_through_depth` integer,
	FOREIGN KEY (`session_id`) REFERENCES `agent_sessions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`parent_turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`summarized_through_turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`first_kept_turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`latest_compaction_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`previous_compaction_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "compaction_fields" CHECK(("agent_turns"."turn_type" = 'normal' AND "agent_turns"."summary" IS NULL AND "agent_turns"."role" IS NOT NULL)
       OR ("agent_turns"."turn_type" = 'compaction' AND "agent_turns"."summary" IS NOT NULL AND "agent_turns"."summarized_through_turn_id" IS NOT NULL)),
	CONSTRAINT "no_self_parent" CHECK("agent_turns"."parent_turn_id" IS NULL OR "agent_turns"."parent_turn_id" <> "agent_turns"."id")
);
--> statement-breakpoint
CREATE INDEX `idx_turns_session_depth` ON `agent_turns` (`session_id`,`depth`);--> statement-breakpoint
CREATE INDEX `idx_turns_previous_compaction` ON `agent_turns` (`previous_compaction_id`);--> statement-breakpoint
CREATE INDEX `idx_turns_compaction` ON `agent_turns` (`session_id`,`summarized_through_depth`) WHERE "agent_turns"."turn_type" = 'compaction';