-- The memberships' references stay within the row's practice (docs/decisions/017-scaling-out.md,
-- migration 0031): the check learns the memberships' tables, and each table gets its trigger.
CREATE OR REPLACE FUNCTION "tenant_same_practice"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  i integer := 0;
  ref_id integer;
  parent_practice integer;
  fields jsonb := to_jsonb(NEW);
BEGIN
  WHILE i < TG_NARGS LOOP
    ref_id := (fields ->> TG_ARGV[i])::integer;
    parent_practice := NULL;
    IF ref_id IS NOT NULL THEN
      IF TG_ARGV[i + 1] = 'appointments' THEN
        SELECT "practice_id" INTO parent_practice FROM "appointments" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'ledger_entries' THEN
        SELECT "practice_id" INTO parent_practice FROM "ledger_entries" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'membership_charges' THEN
        SELECT "practice_id" INTO parent_practice FROM "membership_charges" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'membership_plan_versions' THEN
        SELECT "practice_id" INTO parent_practice FROM "membership_plan_versions" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'membership_plans' THEN
        SELECT "practice_id" INTO parent_practice FROM "membership_plans" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'memberships' THEN
        SELECT "practice_id" INTO parent_practice FROM "memberships" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'patients' THEN
        SELECT "practice_id" INTO parent_practice FROM "patients" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'procedures' THEN
        SELECT "practice_id" INTO parent_practice FROM "procedures" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'products' THEN
        SELECT "practice_id" INTO parent_practice FROM "products" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'promotions' THEN
        SELECT "practice_id" INTO parent_practice FROM "promotions" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'users' THEN
        SELECT "practice_id" INTO parent_practice FROM "users" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'visits' THEN
        SELECT "practice_id" INTO parent_practice FROM "visits" WHERE "id" = ref_id;
      ELSE
        RAISE EXCEPTION 'tenant_same_practice: % is not a tenant table it knows', TG_ARGV[i + 1];
      END IF;
      IF parent_practice IS NOT NULL AND parent_practice <> NEW."practice_id" THEN
        RAISE EXCEPTION '%.% = % is a row of practice %, not of the row''s practice %',
          TG_TABLE_NAME, TG_ARGV[i], ref_id, parent_practice, NEW."practice_id"
          USING ERRCODE = '23514', CONSTRAINT = TG_TABLE_NAME || '_same_practice';
      END IF;
    END IF;
    i := i + 2;
  END LOOP;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "payment_accounts_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "connected_by" ON "payment_accounts" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('connected_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "membership_plan_versions_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "plan_id" ON "membership_plan_versions" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('plan_id', 'membership_plans');
--> statement-breakpoint
CREATE TRIGGER "memberships_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "plan_version_id", "next_plan_version_id", "consent_taken_by" ON "memberships" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'plan_version_id', 'membership_plan_versions', 'next_plan_version_id', 'membership_plan_versions', 'consent_taken_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "membership_charges_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id", "created_by" ON "membership_charges" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships', 'created_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "membership_cycles_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id", "plan_version_id", "charge_id" ON "membership_cycles" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships', 'plan_version_id', 'membership_plan_versions', 'charge_id', 'membership_charges');
--> statement-breakpoint
CREATE TRIGGER "membership_bank_entries_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id" ON "membership_bank_entries" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships');
--> statement-breakpoint
CREATE TRIGGER "membership_allowances_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id", "catalogue_item_id" ON "membership_allowances" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships', 'catalogue_item_id', 'procedures');
--> statement-breakpoint
CREATE TRIGGER "membership_events_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id", "user_id" ON "membership_events" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships', 'user_id', 'users');
