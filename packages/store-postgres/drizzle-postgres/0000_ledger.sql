CREATE TABLE "agent_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"label" text,
	"head_turn_id" text,
	"parent_session_id" text,
	"forked_from_turn_id" text,
	"rebuild_from_raw" boolean DEFAULT false NOT NULL,
	"ignore_compactions_through_depth" integer,
	"context_window" integer NOT NULL,
	"reserve_tokens" integer NOT NULL,
	"keep_recent_tokens" integer NOT NULL,
	"compaction_strategy" text,
	"calibration" jsonb,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_turns" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"parent_turn_id" text,
	"depth" integer NOT NULL,
	"role" text,
	"content" jsonb,
	"model" text,
	"token_count" integer NOT NULL,
	"timestamp" bigint NOT NULL,
	"tool_call_count" integer DEFAULT 0 NOT NULL,
	"metadata" jsonb,
	"turn_type" text DEFAULT 'normal' NOT NULL,
	"summary" text,
	"summarized_through_turn_id" text,
	"first_kept_turn_id" text,
	"tokens_before" integer,
	"tokens_after" integer,
	"trigger" text,
	"strategy" text,
	"summarizer" text,
	"usage_input_tokens" integer,
	"usage_output_tokens" integer,
	"latest_compaction_id" text,
	"cumulative_tokens" bigint NOT NULL,
	"search_text" text,
	"search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('english'::regconfig, coalesce(search_text, ''))) STORED,
	"covers_from_depth" integer,
	"previous_compaction_id" text,
	"summarized_through_depth" integer,
	CONSTRAINT "compaction_fields" CHECK (("agent_turns"."turn_type" = 'normal' AND "agent_turns"."summary" IS NULL AND "agent_turns"."role" IS NOT NULL)
       OR ("agent_turns"."turn_type" = 'compaction' AND "agent_turns"."summary" IS NOT NULL AND "agent_turns"."summarized_through_turn_id" IS NOT NULL)),
	CONSTRAINT "no_self_parent" CHECK ("agent_turns"."parent_turn_id" IS NULL OR "agent_turns"."parent_turn_id" <> "agent_turns"."id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"channel" text NOT NULL,
	"external_id" text NOT NULL,
	"author" text,
	"kind" text NOT NULL,
	"payload" text NOT NULL,
	"occurred_at" bigint NOT NULL,
	"received_at" bigint NOT NULL,
	"seq" bigint NOT NULL,
	"prev_hash" text,
	"hash" text NOT NULL,
	"search_text" text,
	"search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('english'::regconfig, coalesce(search_text, ''))) STORED,
	CONSTRAINT "seq_positive" CHECK ("events"."seq" >= 1)
);
--> statement-breakpoint
CREATE TABLE "forest_clusters" (
	"compaction_id" text NOT NULL,
	"root_id" text NOT NULL,
	"position" integer NOT NULL,
	"members" integer NOT NULL,
	"member_tokens" bigint NOT NULL,
	"summary" text,
	"summary_version" integer NOT NULL,
	"block" text NOT NULL,
	"block_tokens" bigint NOT NULL,
	"dirty" boolean NOT NULL,
	"pending" jsonb NOT NULL,
	"absorbed_summaries" jsonb NOT NULL,
	"centroid" jsonb NOT NULL,
	"first_timestamp" bigint NOT NULL,
	"last_timestamp" bigint NOT NULL,
	"touched" bigint NOT NULL,
	"generation" integer NOT NULL,
	"dropped" boolean NOT NULL,
	CONSTRAINT "forest_clusters_compaction_id_root_id_pk" PRIMARY KEY("compaction_id","root_id")
);
--> statement-breakpoint
CREATE TABLE "forest_lineages" (
	"compaction_id" text PRIMARY KEY NOT NULL,
	"lineage_id" text NOT NULL,
	"lineage_parent_id" text,
	"sequence" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forest_nodes" (
	"compaction_id" text NOT NULL,
	"node_id" text NOT NULL,
	"parent_id" text NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "forest_nodes_compaction_id_node_id_pk" PRIMARY KEY("compaction_id","node_id"),
	CONSTRAINT "forest_node_not_compaction" CHECK ("forest_nodes"."node_id" <> "forest_nodes"."compaction_id")
);
--> statement-breakpoint
CREATE TABLE "forest_states" (
	"compaction_id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"previous_compaction_id" text,
	"seed_compaction_id" text,
	"config" jsonb NOT NULL,
	"clock" bigint NOT NULL,
	"document_count" bigint NOT NULL,
	"changed_terms" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forest_terms" (
	"lineage_id" text NOT NULL,
	"term" text NOT NULL,
	"sequence" integer NOT NULL,
	"document_frequency" bigint NOT NULL,
	CONSTRAINT "forest_terms_lineage_id_term_sequence_pk" PRIMARY KEY("lineage_id","term","sequence")
);
--> statement-breakpoint
CREATE TABLE "topic_drops" (
	"id" serial PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"cluster_id" text NOT NULL,
	"dropped" boolean NOT NULL,
	"at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transcript_lines" (
	"source_key" text NOT NULL,
	"line_id" text NOT NULL,
	"turn_id" text,
	CONSTRAINT "transcript_lines_source_key_line_id_pk" PRIMARY KEY("source_key","line_id")
);
--> statement-breakpoint
CREATE TABLE "transcript_sources" (
	"source_key" text PRIMARY KEY NOT NULL,
	"format" text NOT NULL,
	"session_id" text NOT NULL,
	"path" text,
	"imported_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "turn_embeddings" (
	"turn_id" text NOT NULL,
	"model" text NOT NULL,
	"dimensions" integer NOT NULL,
	"vector" "bytea" NOT NULL,
	CONSTRAINT "turn_embeddings_model_turn_id_pk" PRIMARY KEY("model","turn_id")
);
--> statement-breakpoint
CREATE TABLE "turn_events" (
	"turn_id" text NOT NULL,
	"event_id" text NOT NULL,
	CONSTRAINT "turn_events_turn_id_event_id_pk" PRIMARY KEY("turn_id","event_id")
);
--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_head_turn_id_agent_turns_id_fk" FOREIGN KEY ("head_turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_parent_session_id_agent_sessions_id_fk" FOREIGN KEY ("parent_session_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_forked_from_turn_id_agent_turns_id_fk" FOREIGN KEY ("forked_from_turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_session_id_agent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_parent_turn_id_agent_turns_id_fk" FOREIGN KEY ("parent_turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_summarized_through_turn_id_agent_turns_id_fk" FOREIGN KEY ("summarized_through_turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_first_kept_turn_id_agent_turns_id_fk" FOREIGN KEY ("first_kept_turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_latest_compaction_id_agent_turns_id_fk" FOREIGN KEY ("latest_compaction_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_previous_compaction_id_agent_turns_id_fk" FOREIGN KEY ("previous_compaction_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_clusters" ADD CONSTRAINT "forest_clusters_compaction_id_forest_states_compaction_id_fk" FOREIGN KEY ("compaction_id") REFERENCES "public"."forest_states"("compaction_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_clusters" ADD CONSTRAINT "forest_clusters_root_id_agent_turns_id_fk" FOREIGN KEY ("root_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_lineages" ADD CONSTRAINT "forest_lineages_compaction_id_forest_states_compaction_id_fk" FOREIGN KEY ("compaction_id") REFERENCES "public"."forest_states"("compaction_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_lineages" ADD CONSTRAINT "forest_lineages_lineage_parent_id_forest_states_compaction_id_fk" FOREIGN KEY ("lineage_parent_id") REFERENCES "public"."forest_states"("compaction_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_nodes" ADD CONSTRAINT "forest_nodes_compaction_id_forest_states_compaction_id_fk" FOREIGN KEY ("compaction_id") REFERENCES "public"."forest_states"("compaction_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_nodes" ADD CONSTRAINT "forest_nodes_node_id_agent_turns_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_nodes" ADD CONSTRAINT "forest_nodes_parent_id_agent_turns_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_states" ADD CONSTRAINT "forest_states_compaction_id_agent_turns_id_fk" FOREIGN KEY ("compaction_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_states" ADD CONSTRAINT "forest_states_session_id_agent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_states" ADD CONSTRAINT "forest_states_previous_compaction_id_forest_states_compaction_id_fk" FOREIGN KEY ("previous_compaction_id") REFERENCES "public"."forest_states"("compaction_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forest_states" ADD CONSTRAINT "forest_states_seed_compaction_id_agent_turns_id_fk" FOREIGN KEY ("seed_compaction_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topic_drops" ADD CONSTRAINT "topic_drops_session_id_agent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topic_drops" ADD CONSTRAINT "topic_drops_cluster_id_agent_turns_id_fk" FOREIGN KEY ("cluster_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_lines" ADD CONSTRAINT "transcript_lines_source_key_transcript_sources_source_key_fk" FOREIGN KEY ("source_key") REFERENCES "public"."transcript_sources"("source_key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_lines" ADD CONSTRAINT "transcript_lines_turn_id_agent_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_sources" ADD CONSTRAINT "transcript_sources_session_id_agent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."agent_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turn_embeddings" ADD CONSTRAINT "turn_embeddings_turn_id_agent_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turn_events" ADD CONSTRAINT "turn_events_turn_id_agent_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."agent_turns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turn_events" ADD CONSTRAINT "turn_events_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idx_sessions_parent" ON "agent_sessions" USING btree ("parent_session_id");--> statement-breakpoint
CREATE INDEX "idx_sessions_created" ON "agent_sessions" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "idx_sessions_forked_from" ON "agent_sessions" USING btree ("forked_from_turn_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idx_turns_session_depth" ON "agent_turns" USING btree ("session_id","depth");--> statement-breakpoint
CREATE INDEX "idx_turns_previous_compaction" ON "agent_turns" USING btree ("previous_compaction_id");--> statement-breakpoint
CREATE INDEX "idx_turns_compaction" ON "agent_turns" USING btree ("session_id","summarized_through_depth") WHERE "agent_turns"."turn_type" = 'compaction';--> statement-breakpoint
CREATE INDEX "idx_turns_search" ON "agent_turns" USING gin ("search_vector");--> statement-breakpoint
CREATE UNIQUE INDEX "idx_events_channel_external" ON "events" USING btree ("channel","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idx_events_channel_seq" ON "events" USING btree ("channel","seq");--> statement-breakpoint
CREATE INDEX "idx_events_channel_occurred" ON "events" USING btree ("channel","occurred_at");--> statement-breakpoint
CREATE INDEX "idx_events_search" ON "events" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "idx_forest_lineages_sequence" ON "forest_lineages" USING btree ("lineage_id","sequence");--> statement-breakpoint
CREATE INDEX "idx_topic_drops_session" ON "topic_drops" USING btree ("session_id","cluster_id");--> statement-breakpoint
CREATE INDEX "idx_turn_events_event" ON "turn_events" USING btree ("event_id");--> statement-breakpoint
-- Hand-written below (drizzle-kit cannot say these). A session's head is checked at commit: the
-- append moves the head (compare-and-set) before it inserts the turn the head names, so a lost race
-- writes nothing; an append that never inserts its turn fails at COMMIT.
ALTER TABLE "agent_sessions" ALTER CONSTRAINT "agent_sessions_head_turn_id_agent_turns_id_fk" DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
-- Append-only and write-once tables, as on SQLite (0002, 0006, 0010, 0011): no code path and no
-- hand-written SQL changes or removes a stored row. The trigger's argument names the rows in the message.
CREATE OR REPLACE FUNCTION nexus_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % is not allowed', TG_ARGV[0], TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "agent_turns_append_only" BEFORE UPDATE OR DELETE ON "agent_turns" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('agent_turns');
--> statement-breakpoint
CREATE TRIGGER "agent_turns_no_truncate" BEFORE TRUNCATE ON "agent_turns" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('agent_turns');
--> statement-breakpoint
CREATE TRIGGER "events_append_only" BEFORE UPDATE OR DELETE ON "events" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('events');
--> statement-breakpoint
CREATE TRIGGER "events_no_truncate" BEFORE TRUNCATE ON "events" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('events');
--> statement-breakpoint
CREATE TRIGGER "turn_events_append_only" BEFORE UPDATE OR DELETE ON "turn_events" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('turn_events');
--> statement-breakpoint
CREATE TRIGGER "turn_events_no_truncate" BEFORE TRUNCATE ON "turn_events" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('turn_events');
--> statement-breakpoint
CREATE TRIGGER "forest_states_append_only" BEFORE UPDATE OR DELETE ON "forest_states" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('forest_states');
--> statement-breakpoint
CREATE TRIGGER "forest_states_no_truncate" BEFORE TRUNCATE ON "forest_states" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('forest_states');
--> statement-breakpoint
CREATE TRIGGER "forest_nodes_append_only" BEFORE UPDATE OR DELETE ON "forest_nodes" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('forest_nodes');
--> statement-breakpoint
CREATE TRIGGER "forest_nodes_no_truncate" BEFORE TRUNCATE ON "forest_nodes" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('forest_nodes');
--> statement-breakpoint
CREATE TRIGGER "forest_clusters_append_only" BEFORE UPDATE OR DELETE ON "forest_clusters" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('forest_clusters');
--> statement-breakpoint
CREATE TRIGGER "forest_clusters_no_truncate" BEFORE TRUNCATE ON "forest_clusters" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('forest_clusters');
--> statement-breakpoint
CREATE TRIGGER "topic_drops_append_only" BEFORE UPDATE OR DELETE ON "topic_drops" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('topic_drops');
--> statement-breakpoint
CREATE TRIGGER "topic_drops_no_truncate" BEFORE TRUNCATE ON "topic_drops" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('topic_drops');
--> statement-breakpoint
CREATE TRIGGER "forest_lineages_append_only" BEFORE UPDATE OR DELETE ON "forest_lineages" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('forest_lineages');
--> statement-breakpoint
CREATE TRIGGER "forest_lineages_no_truncate" BEFORE TRUNCATE ON "forest_lineages" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('forest_lineages');
--> statement-breakpoint
CREATE TRIGGER "forest_terms_append_only" BEFORE UPDATE OR DELETE ON "forest_terms" FOR EACH ROW EXECUTE FUNCTION nexus_refuse_change('forest_terms');
--> statement-breakpoint
CREATE TRIGGER "forest_terms_no_truncate" BEFORE TRUNCATE ON "forest_terms" FOR EACH STATEMENT EXECUTE FUNCTION nexus_refuse_change('forest_terms');
