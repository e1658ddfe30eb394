ALTER TABLE "audit_events" ADD COLUMN "seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_seq_unique" ON "audit_events" USING btree ("seq");--> statement-breakpoint
-- The audit trail is a hash chain: each event carries the hash of the one before it, so a row
-- deleted or changed by whoever could get past the append-only trigger (the table's owner) breaks
-- the chain, and `npm run audit:verify` finds it. The hash covers every column but id.
CREATE OR REPLACE FUNCTION "audit_event_hash"(
  "seq" bigint, "action" text, "user_id" integer, "practice_id" integer, "ip" text,
  "details" jsonb, "created_at" timestamptz, "prev_hash" text
) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(
    "seq", "action", "user_id", "practice_id", "ip", "details",
    to_char("created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), "prev_hash"
  )::text, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
-- Links each new event to the last one. The advisory lock makes concurrent inserts take turns, so
-- `seq` has no gaps or forks; the caller's values for seq, prev_hash and hash are overwritten.
CREATE OR REPLACE FUNCTION "audit_events_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(7340222);
  SELECT e."seq", e."hash" INTO last FROM "audit_events" e
    WHERE e."seq" IS NOT NULL ORDER BY e."seq" DESC LIMIT 1;
  NEW."seq" := coalesce(last."seq", 0) + 1;
  NEW."prev_hash" := last."hash";
  NEW."hash" := "audit_event_hash"(NEW."seq", NEW."action", NEW."user_id", NEW."practice_id",
    NEW."ip", NEW."details", NEW."created_at", NEW."prev_hash");
  RETURN NEW;
END $$;
--> statement-breakpoint
-- Rows written before this migration join the chain in id order (the owner runs migrations and may
-- lift the append-only trigger for it; the app's role cannot).
ALTER TABLE "audit_events" DISABLE TRIGGER "audit_events_no_update_delete";
--> statement-breakpoint
DO $$
DECLARE
  row record;
  previous text := NULL;
  position bigint := 0;
BEGIN
  FOR row IN SELECT * FROM "audit_events" ORDER BY "id" LOOP
    position := position + 1;
    UPDATE "audit_events" SET "seq" = position, "prev_hash" = previous,
      "hash" = "audit_event_hash"(position, row."action", row."user_id", row."practice_id",
        row."ip", row."details", row."created_at", previous)
      WHERE "id" = row."id" RETURNING "hash" INTO previous;
  END LOOP;
END $$;
--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE TRIGGER "audit_events_no_update_delete";
--> statement-breakpoint
CREATE TRIGGER "audit_events_chain" BEFORE INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_chain"();
