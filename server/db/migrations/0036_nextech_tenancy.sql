-- The Nextech tables' references stay within the row's practice (docs/decisions/017-scaling-out.md,
-- migration 0031): the check learns products, and each table gets its trigger.
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
CREATE TRIGGER "nextech_patients_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id" ON "nextech_patients" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients');
--> statement-breakpoint
CREATE TRIGGER "nextech_claim_lines_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id" ON "nextech_claim_lines" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients');
--> statement-breakpoint
CREATE TRIGGER "nextech_service_codes_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "procedure_id", "product_id" ON "nextech_service_codes" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('procedure_id', 'procedures', 'product_id', 'products');
--> statement-breakpoint
CREATE TRIGGER "nextech_reviews_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "resolved_by" ON "nextech_reviews" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('resolved_by', 'users');
