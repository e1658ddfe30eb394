-- The patients counted per practice and UTC day (server/db/schema.ts patientDaily): the dashboard and
-- the patient list read these few rows per day instead of counting every patient of the practice.
CREATE TABLE "patient_daily" (
	"practice_id" integer NOT NULL,
	"day" date NOT NULL,
	"joined" integer DEFAULT 0 NOT NULL,
	"joined_dated" integer DEFAULT 0 NOT NULL,
	"left_count" integer DEFAULT 0 NOT NULL,
	"merged" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "patient_daily_practice_id_day_pk" PRIMARY KEY("practice_id","day")
);
--> statement-breakpoint
ALTER TABLE "patient_daily" ADD CONSTRAINT "patient_daily_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- What one patient row adds to the daily counts (times `sign`): joined on the day they joined, and,
-- once archived, left on the day they were archived (or on the day they joined, when that is later).
CREATE OR REPLACE FUNCTION "patient_daily_counts"(
  "p_practice" integer, "p_joined_on" date, "p_created_at" timestamptz, "p_archived_at" timestamptz,
  "p_imported" boolean, "p_merged_into" integer, "p_sign" integer
) RETURNS TABLE ("practice_id" integer, "day" date, "joined" integer, "joined_dated" integer, "left_count" integer, "merged" integer)
LANGUAGE sql STABLE AS $$
  SELECT p_practice, coalesce(p_joined_on, (p_created_at AT TIME ZONE 'UTC')::date), p_sign,
    CASE WHEN p_imported AND p_joined_on IS NULL THEN 0 ELSE p_sign END, 0, 0
  UNION ALL
  SELECT p_practice,
    greatest(coalesce(p_joined_on, (p_created_at AT TIME ZONE 'UTC')::date), (p_archived_at AT TIME ZONE 'UTC')::date),
    0, 0, p_sign, CASE WHEN p_merged_into IS NULL THEN 0 ELSE p_sign END
  WHERE p_archived_at IS NOT NULL
$$;
--> statement-breakpoint
-- Adds rows of counts (each a patient's, signed) to the daily counts: summed per practice and day,
-- in one statement, rows in key order so that two writers lock them alike. Only practices that
-- still exist: a practice being deleted takes its counts with it.
CREATE OR REPLACE FUNCTION "patient_daily_merge"("changes" "patient_daily"[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "patient_daily" AS d ("practice_id", "day", "joined", "joined_dated", "left_count", "merged")
  SELECT c."practice_id", c."day", sum(c."joined"), sum(c."joined_dated"), sum(c."left_count"), sum(c."merged")
  FROM unnest("changes") AS c
  WHERE EXISTS (SELECT 1 FROM "practices" AS pr WHERE pr."id" = c."practice_id")
  GROUP BY 1, 2
  ORDER BY 1, 2
  ON CONFLICT ("practice_id", "day") DO UPDATE SET
    "joined" = d."joined" + excluded."joined",
    "joined_dated" = d."joined_dated" + excluded."joined_dated",
    "left_count" = d."left_count" + excluded."left_count",
    "merged" = d."merged" + excluded."merged"
$$;
--> statement-breakpoint
-- Inserted and deleted patients, a statement at a time.
CREATE OR REPLACE FUNCTION "patient_daily_statement"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "patient_daily_merge"(ARRAY(
    SELECT ROW(c.*)::"patient_daily"
    FROM "changed_patients" AS p
    CROSS JOIN LATERAL "patient_daily_counts"(p."practice_id", p."joined_on", p."created_at", p."archived_at",
      p."imported", p."merged_into_id", CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END) AS c));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "patients_daily_inserted" AFTER INSERT ON "patients"
  REFERENCING NEW TABLE AS "changed_patients"
  FOR EACH STATEMENT EXECUTE FUNCTION "patient_daily_statement"();
--> statement-breakpoint
CREATE TRIGGER "patients_daily_deleted" AFTER DELETE ON "patients"
  REFERENCING OLD TABLE AS "changed_patients"
  FOR EACH STATEMENT EXECUTE FUNCTION "patient_daily_statement"();
--> statement-breakpoint
-- An update of a counted column moves the row's counts from the old values to the new ones. Only
-- those columns fire it: the points balance, written with every ledger entry, does not.
CREATE OR REPLACE FUNCTION "patient_daily_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "patient_daily_merge"(ARRAY(
    SELECT ROW(c.*)::"patient_daily" FROM "patient_daily_counts"(OLD."practice_id", OLD."joined_on",
      OLD."created_at", OLD."archived_at", OLD."imported", OLD."merged_into_id", -1) AS c
    UNION ALL
    SELECT ROW(c.*)::"patient_daily" FROM "patient_daily_counts"(NEW."practice_id", NEW."joined_on",
      NEW."created_at", NEW."archived_at", NEW."imported", NEW."merged_into_id", 1) AS c));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "patients_daily_moved"
  AFTER UPDATE OF "practice_id", "joined_on", "created_at", "archived_at", "imported", "merged_into_id" ON "patients"
  FOR EACH ROW
  WHEN ((OLD."practice_id", OLD."joined_on", OLD."created_at", OLD."archived_at", OLD."imported", OLD."merged_into_id")
    IS DISTINCT FROM (NEW."practice_id", NEW."joined_on", NEW."created_at", NEW."archived_at", NEW."imported", NEW."merged_into_id"))
  EXECUTE FUNCTION "patient_daily_moved"();
--> statement-breakpoint
-- The patients added before this migration.
SELECT "patient_daily_merge"(ARRAY(
  SELECT ROW(c.*)::"patient_daily"
  FROM "patients" AS p
  CROSS JOIN LATERAL "patient_daily_counts"(p."practice_id", p."joined_on", p."created_at", p."archived_at",
    p."imported", p."merged_into_id", 1) AS c));
