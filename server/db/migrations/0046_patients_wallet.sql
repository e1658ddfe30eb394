CREATE TABLE "patient_sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text
);
--> statement-breakpoint
CREATE TABLE "wallet_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"contact_hash" text NOT NULL,
	"channel" text NOT NULL,
	"salt" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_codes_channel_check" CHECK ("wallet_codes"."channel" in ('email', 'sms'))
);
--> statement-breakpoint
ALTER TABLE "patient_sessions" ADD CONSTRAINT "patient_sessions_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_sessions" ADD CONSTRAINT "patient_sessions_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_codes" ADD CONSTRAINT "wallet_codes_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_codes" ADD CONSTRAINT "wallet_codes_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "patient_sessions_token_hash_unique" ON "patient_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "patient_sessions_patient_idx" ON "patient_sessions" USING btree ("practice_id","patient_id");--> statement-breakpoint
CREATE INDEX "wallet_codes_contact_idx" ON "wallet_codes" USING btree ("practice_id","contact_hash","created_at");--> statement-breakpoint
-- The wallet's references stay within the row's practice (migrations 0031, 0040, 0044): a code's
-- and a session's patient are the practice's.
CREATE TRIGGER "wallet_codes_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id" ON "wallet_codes" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients');--> statement-breakpoint
CREATE TRIGGER "patient_sessions_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id" ON "patient_sessions" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients');
--> statement-breakpoint
-- Archiving a patient (by hand, or a merge, which archives the merged one before moving its rows)
-- ends its wallet sessions and spends its sign-in codes, whatever the path that archived it.
CREATE OR REPLACE FUNCTION "patient_archived_ends_wallet"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."archived_at" IS NOT NULL AND OLD."archived_at" IS NULL THEN
    UPDATE "patient_sessions"
       SET "revoked_at" = NEW."archived_at",
           "revoked_reason" = CASE WHEN NEW."merged_into_id" IS NULL THEN 'archived' ELSE 'merged' END
     WHERE "patient_id" = NEW."id" AND "revoked_at" IS NULL;
    UPDATE "wallet_codes" SET "used_at" = NEW."archived_at"
     WHERE "patient_id" = NEW."id" AND "used_at" IS NULL;
  END IF;
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "patients_archived_ends_wallet" AFTER UPDATE OF "archived_at" ON "patients" FOR EACH ROW EXECUTE FUNCTION "patient_archived_ends_wallet"();
