-- Merging two patients (issue 29; docs/decisions/016-merging-patients.md). The merged record stays,
-- archived, with a link to the patient it was merged into; `patient_merges` keeps each merge, its
-- idempotency key and what it moved, once per merged patient.
ALTER TABLE "patients" ADD COLUMN "merged_into_id" integer;--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_merged_into_id_patients_id_fk" FOREIGN KEY ("merged_into_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_merged_into_check" CHECK ("patients"."merged_into_id" is null or ("patients"."merged_into_id" <> "patients"."id" and "patients"."archived_at" is not null));--> statement-breakpoint
CREATE TABLE "patient_merges" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"kept_id" integer NOT NULL,
	"merged_id" integer NOT NULL,
	"idempotency_key" text,
	"moved" jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "patient_merges" ADD CONSTRAINT "patient_merges_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_merges" ADD CONSTRAINT "patient_merges_kept_id_patients_id_fk" FOREIGN KEY ("kept_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_merges" ADD CONSTRAINT "patient_merges_merged_id_patients_id_fk" FOREIGN KEY ("merged_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_merges" ADD CONSTRAINT "patient_merges_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "patient_merges_merged_unique" ON "patient_merges" USING btree ("merged_id");--> statement-breakpoint
CREATE UNIQUE INDEX "patient_merges_idempotency_unique" ON "patient_merges" USING btree ("practice_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "patient_merges_kept_idx" ON "patient_merges" USING btree ("kept_id");--> statement-breakpoint
-- The possible duplicates (active patients of a practice sharing a phone or an e-mail) are found
-- by joining the practice's patients with themselves on these two keys.
CREATE INDEX "patients_duplicate_phone_idx" ON "patients" USING btree ("practice_id","phone") WHERE "patients"."archived_at" is null and "patients"."phone" is not null;--> statement-breakpoint
CREATE INDEX "patients_duplicate_email_idx" ON "patients" USING btree ("practice_id",lower("email")) WHERE "patients"."archived_at" is null and "patients"."email" is not null;--> statement-breakpoint
-- The ledger stays append-only (migration 0006) with one exception, the merge: an entry or an
-- allocation may change its patient, and nothing else, from a patient that was merged to the
-- patient it was merged into (the merge sets `merged_into_id` first, in the same transaction).
-- Every other UPDATE, every DELETE and TRUNCATE are still refused.
CREATE OR REPLACE FUNCTION "ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.patient_id IS DISTINCT FROM OLD.patient_id
       AND (to_jsonb(NEW) - 'patient_id') = (to_jsonb(OLD) - 'patient_id')
       AND EXISTS (
         SELECT 1 FROM "patients"
         WHERE "id" = OLD.patient_id AND "merged_into_id" = NEW.patient_id
       ) THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP USING ERRCODE = '42501';
END $$;
