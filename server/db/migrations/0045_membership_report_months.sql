CREATE TABLE "membership_report_months" (
	"practice_id" integer NOT NULL,
	"month" date NOT NULL,
	"active" integer NOT NULL,
	"paused" integer NOT NULL,
	"past_due" integer NOT NULL,
	"unpaid" integer NOT NULL,
	"mrr_cents" bigint NOT NULL,
	"new_cents" bigint NOT NULL,
	"expansion_cents" bigint NOT NULL,
	"contraction_cents" bigint NOT NULL,
	"voluntary_cents" bigint NOT NULL,
	"involuntary_cents" bigint NOT NULL,
	"reactivation_cents" bigint NOT NULL,
	"bank_paid_in_cents" bigint NOT NULL,
	"bank_used_cents" bigint NOT NULL,
	"bank_refunded_cents" bigint NOT NULL,
	"bank_closing_cents" bigint NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "membership_report_months_practice_id_month_pk" PRIMARY KEY("practice_id","month")
);
--> statement-breakpoint
ALTER TABLE "membership_cycles" ADD COLUMN "version_changed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "membership_report_months" ADD CONSTRAINT "membership_report_months_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "membership_charges_recovered_history_idx" ON "membership_charges" USING btree ("membership_id","settled_at") WHERE "membership_charges"."purpose" = 'cycle' and "membership_charges"."status" = 'succeeded' and "membership_charges"."attempt" > 1;--> statement-breakpoint
CREATE INDEX "membership_cycles_version_changed_idx" ON "membership_cycles" USING btree ("practice_id","created_at") WHERE "membership_cycles"."version_changed";--> statement-breakpoint
CREATE INDEX "membership_cycles_versions_idx" ON "membership_cycles" USING btree ("membership_id","created_at") WHERE "membership_cycles"."version_changed";--> statement-breakpoint
CREATE INDEX "membership_events_status_history_idx" ON "membership_events" USING btree ("membership_id","at") WHERE "membership_events"."kind" in ('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended', 'plan_changed');--> statement-breakpoint
-- A cycle changes the membership's plan version when its version differs from the cycle before
-- (a first cycle always does), or when the membership has ever changed plan now (its versions
-- then also come from its events, so each of its cycles is kept: exact, and rare).
CREATE OR REPLACE FUNCTION "membership_cycle_version_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."version_changed" := NEW."plan_version_id" IS DISTINCT FROM (
      SELECT y."plan_version_id" FROM "membership_cycles" y
      WHERE y."membership_id" = NEW."membership_id" AND y."cycle" < NEW."cycle"
      ORDER BY y."cycle" DESC LIMIT 1)
    OR EXISTS (SELECT 1 FROM "membership_events" e
      WHERE e."membership_id" = NEW."membership_id" AND e."kind" = 'plan_changed');
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "membership_cycles_version_changed" BEFORE INSERT ON "membership_cycles" FOR EACH ROW EXECUTE FUNCTION "membership_cycle_version_changed"();--> statement-breakpoint
-- The same for the cycles written before this migration.
UPDATE "membership_cycles" y SET "version_changed" = true
FROM (
  SELECT "membership_id", "cycle", "plan_version_id" IS DISTINCT FROM
    lag("plan_version_id") OVER (PARTITION BY "membership_id" ORDER BY "cycle") AS changed
  FROM "membership_cycles"
) c
WHERE c."membership_id" = y."membership_id" AND c."cycle" = y."cycle"
  AND (c.changed OR EXISTS (SELECT 1 FROM "membership_events" e
    WHERE e."membership_id" = y."membership_id" AND e."kind" = 'plan_changed'));
