CREATE TABLE "nextech_claim_lines" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"claim_id" text NOT NULL,
	"line_id" text NOT NULL,
	"nextech_patient_id" text,
	"patient_id" integer,
	"code" text,
	"text" text NOT NULL,
	"quantity" integer NOT NULL,
	"net_cents" integer NOT NULL,
	"billed_on" date,
	"procedure_id" integer,
	"product_id" integer,
	"points" integer DEFAULT 0 NOT NULL,
	"state" text NOT NULL,
	"note" text,
	"voided" boolean DEFAULT false NOT NULL,
	"earn_entry_id" integer,
	"reverse_entry_id" integer,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "nextech_claim_lines_state_check" CHECK ("nextech_claim_lines"."state" in ('earned', 'reversed', 'none', 'waiting', 'review'))
);
--> statement-breakpoint
CREATE TABLE "nextech_patients" (
	"practice_id" integer NOT NULL,
	"nextech_id" text NOT NULL,
	"patient_id" integer,
	"state" text NOT NULL,
	"referring_nextech_id" text,
	"referral_entry_id" integer,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "nextech_patients_practice_id_nextech_id_pk" PRIMARY KEY("practice_id","nextech_id"),
	CONSTRAINT "nextech_patients_state_check" CHECK ("nextech_patients"."state" in ('linked', 'review', 'ignored'))
);
--> statement-breakpoint
CREATE TABLE "nextech_reviews" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"resolution" text,
	"resolved_by" integer,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "nextech_reviews_kind_check" CHECK ("nextech_reviews"."kind" in ('patient', 'reversal', 'ceiling'))
);
--> statement-breakpoint
CREATE TABLE "nextech_service_codes" (
	"practice_id" integer NOT NULL,
	"code" text NOT NULL,
	"procedure_id" integer,
	"product_id" integer,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "nextech_service_codes_practice_id_code_pk" PRIMARY KEY("practice_id","code"),
	CONSTRAINT "nextech_service_codes_item_check" CHECK (("nextech_service_codes"."procedure_id" is null) <> ("nextech_service_codes"."product_id" is null))
);
--> statement-breakpoint
CREATE TABLE "nextech_sync_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requests" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "nextech_sync_runs_status_check" CHECK ("nextech_sync_runs"."status" in ('running', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "nextech_id" text;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "nextech_status" text;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "watermarks" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "last_sync_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "failure_mailed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD COLUMN "award_from" date;--> statement-breakpoint
ALTER TABLE "nextech_claim_lines" ADD CONSTRAINT "nextech_claim_lines_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_claim_lines" ADD CONSTRAINT "nextech_claim_lines_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_patients" ADD CONSTRAINT "nextech_patients_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_patients" ADD CONSTRAINT "nextech_patients_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_reviews" ADD CONSTRAINT "nextech_reviews_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_reviews" ADD CONSTRAINT "nextech_reviews_resolved_by_users_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_service_codes" ADD CONSTRAINT "nextech_service_codes_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_service_codes" ADD CONSTRAINT "nextech_service_codes_procedure_id_procedures_id_fk" FOREIGN KEY ("procedure_id") REFERENCES "public"."procedures"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_service_codes" ADD CONSTRAINT "nextech_service_codes_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nextech_sync_runs" ADD CONSTRAINT "nextech_sync_runs_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "nextech_claim_lines_unique" ON "nextech_claim_lines" USING btree ("practice_id","claim_id","line_id");--> statement-breakpoint
CREATE INDEX "nextech_claim_lines_patient_idx" ON "nextech_claim_lines" USING btree ("practice_id","nextech_patient_id");--> statement-breakpoint
CREATE INDEX "nextech_claim_lines_code_idx" ON "nextech_claim_lines" USING btree ("practice_id","code");--> statement-breakpoint
CREATE INDEX "nextech_patients_patient_idx" ON "nextech_patients" USING btree ("patient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "nextech_reviews_open_unique" ON "nextech_reviews" USING btree ("practice_id","kind","subject") WHERE "nextech_reviews"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "nextech_reviews_practice_idx" ON "nextech_reviews" USING btree ("practice_id","id");--> statement-breakpoint
CREATE INDEX "nextech_sync_runs_practice_idx" ON "nextech_sync_runs" USING btree ("practice_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "appointments_nextech_unique" ON "appointments" USING btree ("practice_id","nextech_id") WHERE "appointments"."nextech_id" is not null;