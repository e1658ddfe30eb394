CREATE TABLE "billing_clock" (
	"id" integer PRIMARY KEY NOT NULL,
	"offset_ms" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "membership_allowances" (
	"membership_id" integer NOT NULL,
	"catalogue_item_id" integer NOT NULL,
	"practice_id" integer NOT NULL,
	"remaining" integer NOT NULL,
	CONSTRAINT "membership_allowances_membership_id_catalogue_item_id_pk" PRIMARY KEY("membership_id","catalogue_item_id"),
	CONSTRAINT "membership_allowances_remaining_check" CHECK ("membership_allowances"."remaining" >= 0)
);
--> statement-breakpoint
CREATE TABLE "membership_bank_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"membership_id" integer NOT NULL,
	"kind" text NOT NULL,
	"cycle" integer,
	"amount_cents" integer NOT NULL,
	"balance_after" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "membership_bank_balance_check" CHECK ("membership_bank_entries"."balance_after" >= 0)
);
--> statement-breakpoint
CREATE TABLE "membership_charges" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"membership_id" integer NOT NULL,
	"cycle" integer NOT NULL,
	"purpose" text NOT NULL,
	"attempt" integer NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"gateway_ref" text,
	"failure_message" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "membership_charges_status_check" CHECK ("membership_charges"."status" in ('pending', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "membership_cycles" (
	"membership_id" integer NOT NULL,
	"cycle" integer NOT NULL,
	"practice_id" integer NOT NULL,
	"plan_version_id" integer NOT NULL,
	"charge_id" integer,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"bank_cents" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "membership_cycles_membership_id_cycle_pk" PRIMARY KEY("membership_id","cycle")
);
--> statement-breakpoint
CREATE TABLE "membership_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"membership_id" integer NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" integer,
	"detail" text NOT NULL,
	"user_id" integer,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "membership_plan_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"plan_id" integer NOT NULL,
	"version" integer NOT NULL,
	"price_cents" integer NOT NULL,
	"interval" text NOT NULL,
	"setup_fee_cents" integer DEFAULT 0 NOT NULL,
	"min_cycles" integer DEFAULT 1 NOT NULL,
	"notice_days" integer DEFAULT 0 NOT NULL,
	"perks" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "membership_plan_versions_interval_check" CHECK ("membership_plan_versions"."interval" in ('month', 'quarter', 'year')),
	CONSTRAINT "membership_plan_versions_price_check" CHECK ("membership_plan_versions"."price_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "membership_plans" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"current_version" integer DEFAULT 1 NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"plan_version_id" integer NOT NULL,
	"next_plan_version_id" integer,
	"status" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"cycle" integer DEFAULT 1 NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"renews_at" timestamp with time zone,
	"next_payment_attempt_at" timestamp with time zone,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"cancel_at" timestamp with time zone,
	"cancel_reason" text,
	"ended_at" timestamp with time zone,
	"paused_cycles" integer DEFAULT 0 NOT NULL,
	"bank_cents" integer DEFAULT 0 NOT NULL,
	"customer_id" text NOT NULL,
	"card_brand" text,
	"card_last4" text,
	"card_exp_month" integer,
	"card_exp_year" integer,
	"expiry_notice_for" text,
	"card_link_hash" text,
	"consent_text_version" text NOT NULL,
	"consent_accepted_by_name" text NOT NULL,
	"consent_at" timestamp with time zone NOT NULL,
	"consent_taken_by" integer,
	"consent_method" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_bank_check" CHECK ("memberships"."bank_cents" >= 0),
	CONSTRAINT "memberships_status_check" CHECK ("memberships"."status" in ('active', 'past_due', 'paused', 'unpaid', 'cancelled', 'ended'))
);
--> statement-breakpoint
CREATE TABLE "payment_accounts" (
	"practice_id" integer PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"account_id" text NOT NULL,
	"connected_by" integer,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "test_gateway_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "test_gateway_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"account_id" text NOT NULL,
	"customer_id" text,
	"kind" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"refunded_charge_id" text,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "test_gateway_member_customers" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"card_brand" text NOT NULL,
	"card_last4" text NOT NULL,
	"card_exp_month" integer NOT NULL,
	"card_exp_year" integer NOT NULL,
	"charge_outcome" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "membership_allowances" ADD CONSTRAINT "membership_allowances_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_allowances" ADD CONSTRAINT "membership_allowances_catalogue_item_id_procedures_id_fk" FOREIGN KEY ("catalogue_item_id") REFERENCES "public"."procedures"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_allowances" ADD CONSTRAINT "membership_allowances_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_bank_entries" ADD CONSTRAINT "membership_bank_entries_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_bank_entries" ADD CONSTRAINT "membership_bank_entries_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_charges" ADD CONSTRAINT "membership_charges_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_charges" ADD CONSTRAINT "membership_charges_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_charges" ADD CONSTRAINT "membership_charges_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_cycles" ADD CONSTRAINT "membership_cycles_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_cycles" ADD CONSTRAINT "membership_cycles_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_cycles" ADD CONSTRAINT "membership_cycles_plan_version_id_membership_plan_versions_id_fk" FOREIGN KEY ("plan_version_id") REFERENCES "public"."membership_plan_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_cycles" ADD CONSTRAINT "membership_cycles_charge_id_membership_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."membership_charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_events" ADD CONSTRAINT "membership_events_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_events" ADD CONSTRAINT "membership_events_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_events" ADD CONSTRAINT "membership_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_plan_versions" ADD CONSTRAINT "membership_plan_versions_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_plan_versions" ADD CONSTRAINT "membership_plan_versions_plan_id_membership_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."membership_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_plans" ADD CONSTRAINT "membership_plans_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_plan_version_id_membership_plan_versions_id_fk" FOREIGN KEY ("plan_version_id") REFERENCES "public"."membership_plan_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_next_plan_version_id_membership_plan_versions_id_fk" FOREIGN KEY ("next_plan_version_id") REFERENCES "public"."membership_plan_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_consent_taken_by_users_id_fk" FOREIGN KEY ("consent_taken_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_accounts" ADD CONSTRAINT "payment_accounts_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_accounts" ADD CONSTRAINT "payment_accounts_connected_by_users_id_fk" FOREIGN KEY ("connected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "membership_bank_credit_unique" ON "membership_bank_entries" USING btree ("membership_id","cycle") WHERE "membership_bank_entries"."kind" = 'credit';--> statement-breakpoint
CREATE INDEX "membership_bank_membership_idx" ON "membership_bank_entries" USING btree ("membership_id");--> statement-breakpoint
CREATE UNIQUE INDEX "membership_charges_key_unique" ON "membership_charges" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "membership_charges_paid_cycle_unique" ON "membership_charges" USING btree ("membership_id","cycle") WHERE "membership_charges"."purpose" = 'cycle' and "membership_charges"."status" = 'succeeded';--> statement-breakpoint
CREATE UNIQUE INDEX "membership_charges_attempt_unique" ON "membership_charges" USING btree ("membership_id","cycle","purpose","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "membership_charges_in_flight_unique" ON "membership_charges" USING btree ("membership_id","cycle","purpose") WHERE "membership_charges"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "membership_charges_pending_idx" ON "membership_charges" USING btree ("created_at") WHERE "membership_charges"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "membership_events_membership_idx" ON "membership_events" USING btree ("membership_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "membership_plan_versions_unique" ON "membership_plan_versions" USING btree ("plan_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "membership_plans_practice_name_unique" ON "membership_plans" USING btree ("practice_id",lower(btrim("name"))) WHERE "membership_plans"."archived_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_idempotency_unique" ON "memberships" USING btree ("practice_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_patient_live_unique" ON "memberships" USING btree ("patient_id") WHERE "memberships"."status" in ('active', 'past_due', 'paused', 'unpaid');--> statement-breakpoint
CREATE INDEX "memberships_due_idx" ON "memberships" USING btree ("next_payment_attempt_at") WHERE "memberships"."next_payment_attempt_at" is not null;--> statement-breakpoint
CREATE INDEX "memberships_practice_idx" ON "memberships" USING btree ("practice_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_card_link_unique" ON "memberships" USING btree ("card_link_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "test_gateway_charges_key_unique" ON "test_gateway_charges" USING btree ("account_id","idempotency_key");