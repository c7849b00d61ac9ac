CREATE TABLE `turn_embeddings` (
	`turn_id` text NOT NULL,
	`model` text NOT NULL,
	`dimensions` integer NOT NULL,
	`vector` blob NOT NULL,
	PRIMARY KEY(`model`, `turn_id`),
	FOREIGN KEY (`turn_id`) REFERENCES `agent_turns`(`id`) ON UPDATE no action ON DELETE no action
);
