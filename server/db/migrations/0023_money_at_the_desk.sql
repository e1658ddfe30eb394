CREATE TABLE "codeless_redemptions" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"entry_id" integer NOT NULL,
	"points" integer NOT NULL,
	"day" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD COLUMN "visit_id" integer;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "max_points_per_line" integer DEFAULT 5000 NOT NULL;--> statement-breakpoint
ALTER TABLE "redemption_codes" ADD COLUMN "points" integer;--> statement-breakpoint
ALTER TABLE "redemption_codes" ADD COLUMN "promotion_id" integer;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "approved_by" integer;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "approval_reason" text;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "approval_id" text;--> statement-breakpoint
ALTER TABLE "codeless_redemptions" ADD CONSTRAINT "codeless_redemptions_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "codeless_redemptions" ADD CONSTRAINT "codeless_redemptions_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "codeless_redemptions" ADD CONSTRAINT "codeless_redemptions_entry_id_ledger_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "codeless_redemptions_patient_day_idx" ON "codeless_redemptions" USING btree ("patient_id","day");--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_approved_by_users_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "visits_approval_unique" ON "visits" USING btree ("approval_id") WHERE "visits"."approval_id" is not null;