ALTER TABLE "ledger_daily" ADD COLUMN "reverse_earn" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_daily" ADD COLUMN "reverse_bonus" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_daily" ADD COLUMN "reverse_adjust" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_daily" ADD COLUMN "reverse_redeem" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_daily" ADD COLUMN "reverse_expire" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "joined_on" date;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "imported" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Patients created by an import before this migration (issue 28).
UPDATE "patients" SET "imported" = true
WHERE "id" IN (SELECT "patient_id" FROM "patient_import_rows");
--> statement-breakpoint
-- The daily sums also split each statement's reversals by the kind of the entry they cancel
-- (issue 28), read from the reversed entries (written by an earlier statement, or by this one).
CREATE OR REPLACE FUNCTION "ledger_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ledger_daily" AS d ("practice_id", "day", "earn", "bonus", "adjust", "redeem", "expire", "reverse",
    "reverse_earn", "reverse_bonus", "reverse_adjust", "reverse_redeem", "reverse_expire")
  SELECT i."practice_id", (i."created_at" AT TIME ZONE 'UTC')::date,
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'earn'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'bonus'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'adjust'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'redeem'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'expire'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'reverse'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'reverse' AND r."kind" = 'earn'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'reverse' AND r."kind" = 'bonus'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'reverse' AND r."kind" = 'adjust'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'reverse' AND r."kind" = 'redeem'), 0),
    coalesce(sum(i."points") FILTER (WHERE i."kind" = 'reverse' AND r."kind" = 'expire'), 0)
  FROM "inserted_entries" i
  LEFT JOIN "ledger_entries" r ON r."id" = i."reverses_id"
  GROUP BY 1, 2
  ORDER BY 1, 2
  ON CONFLICT ("practice_id", "day") DO UPDATE SET
    "earn" = d."earn" + excluded."earn",
    "bonus" = d."bonus" + excluded."bonus",
    "adjust" = d."adjust" + excluded."adjust",
    "redeem" = d."redeem" + excluded."redeem",
    "expire" = d."expire" + excluded."expire",
    "reverse" = d."reverse" + excluded."reverse",
    "reverse_earn" = d."reverse_earn" + excluded."reverse_earn",
    "reverse_bonus" = d."reverse_bonus" + excluded."reverse_bonus",
    "reverse_adjust" = d."reverse_adjust" + excluded."reverse_adjust",
    "reverse_redeem" = d."reverse_redeem" + excluded."reverse_redeem",
    "reverse_expire" = d."reverse_expire" + excluded."reverse_expire";
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The reversals written before this migration, split by kind.
UPDATE "ledger_daily" d SET
  "reverse_earn" = s."earn", "reverse_bonus" = s."bonus", "reverse_adjust" = s."adjust",
  "reverse_redeem" = s."redeem", "reverse_expire" = s."expire"
FROM (
  SELECT i."practice_id", (i."created_at" AT TIME ZONE 'UTC')::date AS "day",
    coalesce(sum(i."points") FILTER (WHERE r."kind" = 'earn'), 0) AS "earn",
    coalesce(sum(i."points") FILTER (WHERE r."kind" = 'bonus'), 0) AS "bonus",
    coalesce(sum(i."points") FILTER (WHERE r."kind" = 'adjust'), 0) AS "adjust",
    coalesce(sum(i."points") FILTER (WHERE r."kind" = 'redeem'), 0) AS "redeem",
    coalesce(sum(i."points") FILTER (WHERE r."kind" = 'expire'), 0) AS "expire"
  FROM "ledger_entries" i JOIN "ledger_entries" r ON r."id" = i."reverses_id"
  WHERE i."kind" = 'reverse'
  GROUP BY 1, 2
) s
WHERE d."practice_id" = s."practice_id" AND d."day" = s."day";
