ALTER TABLE "membership_events" ADD COLUMN "plan_version_id" integer;--> statement-breakpoint
ALTER TABLE "membership_events" ADD CONSTRAINT "membership_events_plan_version_id_membership_plan_versions_id_fk" FOREIGN KEY ("plan_version_id") REFERENCES "public"."membership_plan_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "membership_bank_practice_idx" ON "membership_bank_entries" USING btree ("practice_id","created_at");--> statement-breakpoint
CREATE INDEX "membership_charges_recovered_idx" ON "membership_charges" USING btree ("practice_id","settled_at") WHERE "membership_charges"."purpose" = 'cycle' and "membership_charges"."status" = 'succeeded' and "membership_charges"."attempt" > 1;--> statement-breakpoint
CREATE INDEX "membership_cycles_practice_idx" ON "membership_cycles" USING btree ("practice_id","created_at");--> statement-breakpoint
CREATE INDEX "membership_events_status_idx" ON "membership_events" USING btree ("practice_id","at") WHERE "membership_events"."kind" in ('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended', 'plan_changed');--> statement-breakpoint
-- A change of plan now is the one change of version no cycle records: its event keeps the version
-- the membership moved to (the membership is written before its event, in the same transaction).
CREATE OR REPLACE FUNCTION "membership_event_plan_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."kind" = 'plan_changed' AND NEW."plan_version_id" IS NULL THEN
    SELECT "plan_version_id" INTO NEW."plan_version_id" FROM "memberships" WHERE "id" = NEW."membership_id";
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "membership_events_plan_version" BEFORE INSERT ON "membership_events" FOR EACH ROW EXECUTE FUNCTION "membership_event_plan_version"();--> statement-breakpoint
-- Changes made before this migration: the version of the cycle after the change, else the
-- membership's own (exact but for two changes in one cycle).
UPDATE "membership_events" e SET "plan_version_id" = coalesce(
  (SELECT y."plan_version_id" FROM "membership_cycles" y
    WHERE y."membership_id" = e."membership_id" AND y."created_at" > e."at"
    ORDER BY y."created_at" LIMIT 1),
  (SELECT m."plan_version_id" FROM "memberships" m WHERE m."id" = e."membership_id"))
WHERE e."kind" = 'plan_changed' AND e."plan_version_id" IS NULL;
