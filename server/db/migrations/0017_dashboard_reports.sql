CREATE TABLE "ledger_daily" (
	"practice_id" integer NOT NULL,
	"day" date NOT NULL,
	"earn" bigint DEFAULT 0 NOT NULL,
	"bonus" bigint DEFAULT 0 NOT NULL,
	"adjust" bigint DEFAULT 0 NOT NULL,
	"redeem" bigint DEFAULT 0 NOT NULL,
	"expire" bigint DEFAULT 0 NOT NULL,
	"reverse" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "ledger_daily_practice_id_day_pk" PRIMARY KEY("practice_id","day")
);
--> statement-breakpoint
ALTER TABLE "ledger_daily" ADD CONSTRAINT "ledger_daily_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_practice_expires_idx" ON "ledger_entries" USING btree ("practice_id","expires_at") WHERE "ledger_entries"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "patients_practice_created_idx" ON "patients" USING btree ("practice_id","created_at");--> statement-breakpoint
-- The daily sums follow the ledger: after each INSERT statement, its rows summed per practice
-- and UTC day are added in one upsert (rows in key order, so two writers lock them alike).
CREATE OR REPLACE FUNCTION "ledger_daily_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ledger_daily" AS d ("practice_id", "day", "earn", "bonus", "adjust", "redeem", "expire", "reverse")
  SELECT "practice_id", ("created_at" AT TIME ZONE 'UTC')::date,
    coalesce(sum("points") FILTER (WHERE "kind" = 'earn'), 0),
    coalesce(sum("points") FILTER (WHERE "kind" = 'bonus'), 0),
    coalesce(sum("points") FILTER (WHERE "kind" = 'adjust'), 0),
    coalesce(sum("points") FILTER (WHERE "kind" = 'redeem'), 0),
    coalesce(sum("points") FILTER (WHERE "kind" = 'expire'), 0),
    coalesce(sum("points") FILTER (WHERE "kind" = 'reverse'), 0)
  FROM "inserted_entries"
  GROUP BY 1, 2
  ORDER BY 1, 2
  ON CONFLICT ("practice_id", "day") DO UPDATE SET
    "earn" = d."earn" + excluded."earn",
    "bonus" = d."bonus" + excluded."bonus",
    "adjust" = d."adjust" + excluded."adjust",
    "redeem" = d."redeem" + excluded."redeem",
    "expire" = d."expire" + excluded."expire",
    "reverse" = d."reverse" + excluded."reverse";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "ledger_entries_daily_sums" AFTER INSERT ON "ledger_entries"
  REFERENCING NEW TABLE AS "inserted_entries"
  FOR EACH STATEMENT EXECUTE FUNCTION "ledger_daily_add"();
--> statement-breakpoint
-- The entries written before this migration.
INSERT INTO "ledger_daily" ("practice_id", "day", "earn", "bonus", "adjust", "redeem", "expire", "reverse")
SELECT "practice_id", ("created_at" AT TIME ZONE 'UTC')::date,
  coalesce(sum("points") FILTER (WHERE "kind" = 'earn'), 0),
  coalesce(sum("points") FILTER (WHERE "kind" = 'bonus'), 0),
  coalesce(sum("points") FILTER (WHERE "kind" = 'adjust'), 0),
  coalesce(sum("points") FILTER (WHERE "kind" = 'redeem'), 0),
  coalesce(sum("points") FILTER (WHERE "kind" = 'expire'), 0),
  coalesce(sum("points") FILTER (WHERE "kind" = 'reverse'), 0)
FROM "ledger_entries"
GROUP BY 1, 2;
