-- Issue 30 (docs/decisions/017-scaling-out.md): every tenant table carries a non-null practice_id,
-- and every foreign key between tenant tables is checked to stay within one practice, so the
-- tables can later be distributed by practice_id (server/db/tenancy.test.ts holds them to it).

-- Claims written without their practice (the demo seed did) take their offer's.
UPDATE "patient_promotions" AS c SET "practice_id" = p."practice_id" FROM "promotions" AS p WHERE p."id" = c."promotion_id" AND c."practice_id" IS NULL;
--> statement-breakpoint
ALTER TABLE "patient_promotions" ALTER COLUMN "practice_id" SET NOT NULL;
--> statement-breakpoint
-- A reset code belongs to its user's practice.
ALTER TABLE "reset_codes" ADD COLUMN "practice_id" integer;
--> statement-breakpoint
UPDATE "reset_codes" AS r SET "practice_id" = u."practice_id" FROM "users" AS u WHERE u."id" = r."user_id";
--> statement-breakpoint
ALTER TABLE "reset_codes" ALTER COLUMN "practice_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "reset_codes" ADD CONSTRAINT "reset_codes_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- The row's references to other tenant rows (pairs of arguments: column, referenced table) must
-- name rows of the row's own practice. A missing row is left to the foreign key itself. Static
-- statements per table, so PL/pgSQL keeps their plans: one primary-key lookup per reference.
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
      ELSIF TG_ARGV[i + 1] = 'patients' THEN
        SELECT "practice_id" INTO parent_practice FROM "patients" WHERE "id" = ref_id;
      ELSIF TG_ARGV[i + 1] = 'procedures' THEN
        SELECT "practice_id" INTO parent_practice FROM "procedures" WHERE "id" = ref_id;
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
CREATE TRIGGER "personnel_invitations_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "invited_by" ON "personnel_invitations" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('invited_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "patients_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "merged_into_id" ON "patients" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('merged_into_id', 'patients');
--> statement-breakpoint
CREATE TRIGGER "appointments_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "procedure_id" ON "appointments" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'procedure_id', 'procedures');
--> statement-breakpoint
CREATE TRIGGER "activities_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id" ON "activities" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients');
--> statement-breakpoint
CREATE TRIGGER "promotions_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "created_by" ON "promotions" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('created_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "patient_promotions_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "promotion_id", "claimed_by" ON "patient_promotions" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'promotion_id', 'promotions', 'claimed_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "promotion_sends_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "promotion_id", "patient_id" ON "promotion_sends" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('promotion_id', 'promotions', 'patient_id', 'patients');
--> statement-breakpoint
CREATE TRIGGER "uploads_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "uploaded_by" ON "uploads" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('uploaded_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "reset_codes_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "user_id" ON "reset_codes" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('user_id', 'users');
--> statement-breakpoint
CREATE TRIGGER "ledger_entries_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "created_by" ON "ledger_entries" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'created_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "points_reminders_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "lot_entry_id", "patient_id" ON "points_reminders" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('lot_entry_id', 'ledger_entries', 'patient_id', 'patients');
--> statement-breakpoint
CREATE TRIGGER "ledger_allocations_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "debit_entry_id", "lot_entry_id" ON "ledger_allocations" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'debit_entry_id', 'ledger_entries', 'lot_entry_id', 'ledger_entries');
--> statement-breakpoint
CREATE TRIGGER "visits_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "appointment_id", "created_by", "approved_by", "undone_by" ON "visits" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'appointment_id', 'appointments', 'created_by', 'users', 'approved_by', 'users', 'undone_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "visit_items_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "visit_id", "entry_id" ON "visit_items" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('visit_id', 'visits', 'entry_id', 'ledger_entries');
--> statement-breakpoint
CREATE TRIGGER "redemption_codes_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "created_by" ON "redemption_codes" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'created_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "codeless_redemptions_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "entry_id" ON "codeless_redemptions" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'entry_id', 'ledger_entries');
--> statement-breakpoint
CREATE TRIGGER "patient_import_rows_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "created_by" ON "patient_import_rows" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'created_by', 'users');
--> statement-breakpoint
CREATE TRIGGER "patient_merges_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "kept_id", "merged_id", "created_by" ON "patient_merges" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('kept_id', 'patients', 'merged_id', 'patients', 'created_by', 'users');
