CREATE TABLE "points_reminders" (
	"lot_entry_id" integer NOT NULL,
	"days_before" integer NOT NULL,
	"practice_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "points_reminders_lot_entry_id_days_before_pk" PRIMARY KEY("lot_entry_id","days_before"),
	CONSTRAINT "points_reminders_days_check" CHECK ("points_reminders"."days_before" in (30, 7))
);
--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD COLUMN "html" text;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "html" text;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "headers" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "points_reminders" ADD CONSTRAINT "points_reminders_lot_entry_id_ledger_entries_id_fk" FOREIGN KEY ("lot_entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "points_reminders" ADD CONSTRAINT "points_reminders_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "points_reminders" ADD CONSTRAINT "points_reminders_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;