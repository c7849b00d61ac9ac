CREATE TABLE "leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transcript_positions" (
	"path" text PRIMARY KEY NOT NULL,
	"bytes" bigint NOT NULL,
	"line" integer NOT NULL,
	"head" text NOT NULL,
	"updated_at" bigint NOT NULL
);
