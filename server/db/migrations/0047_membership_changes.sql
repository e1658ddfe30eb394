CREATE TABLE "membership_changes" (
	"membership_id" integer NOT NULL,
	"practice_id" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"source" smallint NOT NULL,
	"source_id" integer NOT NULL,
	"sets_status" text,
	"sets_plan_version_id" integer,
	"status_before" text,
	"plan_version_before" integer,
	"status_after" text,
	"plan_version_after" integer,
	CONSTRAINT "membership_changes_membership_id_at_source_source_id_pk" PRIMARY KEY("membership_id","at","source","source_id")
);
--> statement-breakpoint
CREATE TABLE "membership_report_windows" (
	"practice_id" integer NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"period" boolean NOT NULL,
	"active" integer NOT NULL,
	"paused" integer NOT NULL,
	"past_due" integer NOT NULL,
	"unpaid" integer NOT NULL,
	"live" integer NOT NULL,
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
	"churned" integer NOT NULL,
	"recovered" integer NOT NULL,
	"not_recovered" integer NOT NULL,
	"started" integer NOT NULL,
	"cancelled" integer NOT NULL,
	"cancelled_patient" integer NOT NULL,
	"cancelled_staff" integer NOT NULL,
	"cancelled_failed_payment" integer NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "membership_report_windows_practice_id_starts_at_ends_at_period_pk" PRIMARY KEY("practice_id","starts_at","ends_at","period")
);
--> statement-breakpoint
ALTER TABLE "membership_changes" ADD CONSTRAINT "membership_changes_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_changes" ADD CONSTRAINT "membership_changes_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_report_windows" ADD CONSTRAINT "membership_report_windows_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "membership_changes_practice_idx" ON "membership_changes" USING btree ("practice_id","at");--> statement-breakpoint
CREATE INDEX "membership_changes_churn_idx" ON "membership_changes" USING btree ("practice_id","at") WHERE "membership_changes"."sets_status" in ('cancelled', 'ended', 'unpaid');--> statement-breakpoint
CREATE INDEX "membership_changes_past_due_ends_idx" ON "membership_changes" USING btree ("practice_id","at") WHERE "membership_changes"."status_before" = 'past_due' and "membership_changes"."sets_status" is not null;--> statement-breakpoint
CREATE INDEX "memberships_started_idx" ON "memberships" USING btree ("practice_id","started_at");
--> statement-breakpoint
-- The membership's changes stay within its practice (migrations 0031, 0040).
CREATE TRIGGER "membership_changes_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id" ON "membership_changes" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships');
--> statement-breakpoint
-- Records one change of a membership (its status, or its plan version) in the order the report
-- applies them, (at, source, source_id): its state before is the state after the change before it.
-- A change written before others it follows (a bulk load; two at the same instant, an event being
-- applied before a charge) carries the state on to them, until one already agrees. The writers hold
-- the membership's row locked, so its changes are written one transaction at a time.
CREATE OR REPLACE FUNCTION "membership_change_record"(
  p_membership integer, p_practice integer, p_at timestamptz, p_source smallint,
  p_source_id integer, p_status text, p_version integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s text;
  v integer;
  r record;
BEGIN
  SELECT c."status_after", c."plan_version_after" INTO s, v FROM "membership_changes" c
  WHERE c."membership_id" = p_membership
    AND (c."at", c."source", c."source_id") < (p_at, p_source, p_source_id)
  ORDER BY c."at" DESC, c."source" DESC, c."source_id" DESC LIMIT 1;
  INSERT INTO "membership_changes" ("membership_id", "practice_id", "at", "source", "source_id",
    "sets_status", "sets_plan_version_id", "status_before", "plan_version_before", "status_after",
    "plan_version_after")
  VALUES (p_membership, p_practice, p_at, p_source, p_source_id, p_status, p_version, s, v,
    coalesce(p_status, s), coalesce(p_version, v))
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  s := coalesce(p_status, s);
  v := coalesce(p_version, v);
  FOR r IN SELECT c."at", c."source", c."source_id", c."sets_status", c."sets_plan_version_id",
      c."status_before", c."plan_version_before"
    FROM "membership_changes" c
    WHERE c."membership_id" = p_membership
      AND (c."at", c."source", c."source_id") > (p_at, p_source, p_source_id)
    ORDER BY c."at", c."source", c."source_id"
  LOOP
    EXIT WHEN r."status_before" IS NOT DISTINCT FROM s AND r."plan_version_before" IS NOT DISTINCT FROM v;
    UPDATE "membership_changes" SET "status_before" = s, "plan_version_before" = v,
      "status_after" = coalesce(r."sets_status", s),
      "plan_version_after" = coalesce(r."sets_plan_version_id", v)
    WHERE "membership_id" = p_membership AND "at" = r."at" AND "source" = r."source"
      AND "source_id" = r."source_id";
    s := coalesce(r."sets_status", s);
    v := coalesce(r."sets_plan_version_id", v);
  END LOOP;
END $$;
--> statement-breakpoint
-- A status event (enrolled and resumed make a membership active), or a change of plan now.
CREATE OR REPLACE FUNCTION "membership_event_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."kind" = 'plan_changed' THEN
    PERFORM "membership_change_record"(NEW."membership_id", NEW."practice_id", NEW."at", 3::smallint,
      NEW."id", NULL, NEW."plan_version_id");
  ELSE
    PERFORM "membership_change_record"(NEW."membership_id", NEW."practice_id", NEW."at", 0::smallint,
      NEW."id", CASE WHEN NEW."kind" IN ('enrolled', 'resumed') THEN 'active' ELSE NEW."kind" END,
      NULL);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "membership_events_change" AFTER INSERT ON "membership_events" FOR EACH ROW
  WHEN (NEW."kind" IN ('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended')
    OR (NEW."kind" = 'plan_changed' AND NEW."plan_version_id" IS NOT NULL))
  EXECUTE FUNCTION "membership_event_change"();
--> statement-breakpoint
-- A renewal paid on a retry (attempt > 1): a past-due or unpaid membership active again.
CREATE OR REPLACE FUNCTION "membership_charge_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "membership_change_record"(NEW."membership_id", NEW."practice_id", NEW."settled_at",
    1::smallint, NEW."id", 'active', NULL);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "membership_charges_change" AFTER INSERT OR UPDATE OF "status", "settled_at" ON "membership_charges" FOR EACH ROW
  WHEN (NEW."purpose" = 'cycle' AND NEW."status" = 'succeeded' AND NEW."attempt" > 1
    AND NEW."settled_at" IS NOT NULL)
  EXECUTE FUNCTION "membership_charge_change"();
--> statement-breakpoint
-- A cycle on another plan version (migration 0045 marks them).
CREATE OR REPLACE FUNCTION "membership_cycle_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "membership_change_record"(NEW."membership_id", NEW."practice_id", NEW."created_at",
    2::smallint, NEW."cycle", NULL, NEW."plan_version_id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "membership_cycles_change" AFTER INSERT ON "membership_cycles" FOR EACH ROW
  WHEN (NEW."version_changed")
  EXECUTE FUNCTION "membership_cycle_change"();
--> statement-breakpoint
-- Writes the changes of a practice (of every practice when null) again from their sources, in one
-- pass: each one's status and version after are the last set at or before it, its state before the
-- one after the change before it. The rows before this migration are written by it; the report's
-- tests compare what the triggers wrote with it.
CREATE OR REPLACE FUNCTION "membership_changes_rebuild"(p_practice integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "membership_changes" WHERE p_practice IS NULL OR "practice_id" = p_practice;
  INSERT INTO "membership_changes" ("membership_id", "practice_id", "at", "source", "source_id",
    "sets_status", "sets_plan_version_id", "status_before", "plan_version_before", "status_after",
    "plan_version_after")
  WITH raw AS (
    SELECT e."membership_id", e."practice_id", e."at", 0::smallint AS "source", e."id" AS "source_id",
      CASE WHEN e."kind" IN ('enrolled', 'resumed') THEN 'active' ELSE e."kind" END AS "sets_status",
      NULL::integer AS "sets_plan_version_id"
    FROM "membership_events" e
    WHERE e."kind" IN ('enrolled', 'past_due', 'unpaid', 'paused', 'resumed', 'cancelled', 'ended')
      AND (p_practice IS NULL OR e."practice_id" = p_practice)
    UNION ALL
    SELECT c."membership_id", c."practice_id", c."settled_at", 1::smallint, c."id", 'active', NULL
    FROM "membership_charges" c
    WHERE c."purpose" = 'cycle' AND c."status" = 'succeeded' AND c."attempt" > 1
      AND c."settled_at" IS NOT NULL AND (p_practice IS NULL OR c."practice_id" = p_practice)
    UNION ALL
    SELECT y."membership_id", y."practice_id", y."created_at", 2::smallint, y."cycle", NULL,
      y."plan_version_id"
    FROM "membership_cycles" y
    WHERE y."version_changed" AND (p_practice IS NULL OR y."practice_id" = p_practice)
    UNION ALL
    SELECT e."membership_id", e."practice_id", e."at", 3::smallint, e."id", NULL, e."plan_version_id"
    FROM "membership_events" e
    WHERE e."kind" = 'plan_changed' AND e."plan_version_id" IS NOT NULL
      AND (p_practice IS NULL OR e."practice_id" = p_practice)
  ),
  runs AS (
    SELECT raw.*,
      count("sets_status") OVER w AS "status_run",
      count("sets_plan_version_id") OVER w AS "version_run"
    FROM raw
    WINDOW w AS (PARTITION BY "membership_id" ORDER BY "at", "source", "source_id"
      ROWS UNBOUNDED PRECEDING)
  ),
  afters AS (
    SELECT runs.*,
      max("sets_status") OVER (PARTITION BY "membership_id", "status_run") AS "status_after",
      max("sets_plan_version_id") OVER (PARTITION BY "membership_id", "version_run") AS "plan_version_after"
    FROM runs
  )
  SELECT "membership_id", "practice_id", "at", "source", "source_id", "sets_status",
    "sets_plan_version_id",
    lag("status_after") OVER w, lag("plan_version_after") OVER w, "status_after", "plan_version_after"
  FROM afters
  WINDOW w AS (PARTITION BY "membership_id" ORDER BY "at", "source", "source_id");
END $$;
--> statement-breakpoint
SELECT "membership_changes_rebuild"(NULL);
