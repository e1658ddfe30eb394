CREATE TABLE "ledger_allocations" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"debit_entry_id" integer NOT NULL,
	"lot_entry_id" integer NOT NULL,
	"points" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_allocations_points_nonzero_check" CHECK ("ledger_allocations"."points" <> 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"kind" text NOT NULL,
	"points" integer NOT NULL,
	"source_type" text NOT NULL,
	"source_id" integer,
	"idempotency_key" text,
	"reason" text,
	"expires_at" timestamp with time zone,
	"reverses_id" integer,
	"balance_after" integer NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_entries_kind_check" CHECK ("ledger_entries"."kind" in ('earn', 'bonus', 'adjust', 'redeem', 'expire', 'reverse')),
	CONSTRAINT "ledger_entries_points_nonzero_check" CHECK ("ledger_entries"."points" <> 0),
	CONSTRAINT "ledger_entries_sign_check" CHECK (("ledger_entries"."kind" in ('earn', 'bonus') and "ledger_entries"."points" > 0) or ("ledger_entries"."kind" in ('redeem', 'expire') and "ledger_entries"."points" < 0) or "ledger_entries"."kind" in ('adjust', 'reverse')),
	CONSTRAINT "ledger_entries_balance_check" CHECK ("ledger_entries"."balance_after" >= 0)
);
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_access_rights_check";--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "sms_subscription" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "birth_date" date;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "last_visit_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "point_value_cents" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "points_per_dollar" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "joining_bonus" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "expiry_months" integer DEFAULT 12 NOT NULL;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "redemption_code_threshold" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_allocations" ADD CONSTRAINT "ledger_allocations_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_allocations" ADD CONSTRAINT "ledger_allocations_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_allocations" ADD CONSTRAINT "ledger_allocations_debit_entry_id_ledger_entries_id_fk" FOREIGN KEY ("debit_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_allocations" ADD CONSTRAINT "ledger_allocations_lot_entry_id_ledger_entries_id_fk" FOREIGN KEY ("lot_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_allocations_lot_idx" ON "ledger_allocations" USING btree ("lot_entry_id");--> statement-breakpoint
CREATE INDEX "ledger_allocations_debit_idx" ON "ledger_allocations" USING btree ("debit_entry_id");--> statement-breakpoint
CREATE INDEX "ledger_allocations_patient_idx" ON "ledger_allocations" USING btree ("patient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_idempotency_unique" ON "ledger_entries" USING btree ("practice_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_reverses_unique" ON "ledger_entries" USING btree ("reverses_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_patient_idx" ON "ledger_entries" USING btree ("patient_id","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_practice_created_idx" ON "ledger_entries" USING btree ("practice_id","created_at");--> statement-breakpoint
CREATE INDEX "patients_practice_name_idx" ON "patients" USING btree ("practice_id","last_name","first_name","id");--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_points_nonnegative_check" CHECK ("patients"."points" >= 0);--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_access_rights_check" CHECK ("users"."access_rights" in ('Admin', 'Manager', 'Staff'));