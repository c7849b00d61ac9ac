ALTER TABLE `agent_turns` ADD `search_text` text;--> statement-breakpoint
ALTER TABLE `events` ADD `search_text` text;