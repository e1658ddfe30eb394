CREATE TABLE "nextech_waiting_appointments" (
	"practice_id" integer NOT NULL,
	"nextech_id" text NOT NULL,
	"nextech_patient_id" text NOT NULL,
	"record" jsonb NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "nextech_waiting_appointments_practice_id_nextech_id_pk" PRIMARY KEY("practice_id","nextech_id")
);
--> statement-breakpoint
ALTER TABLE "nextech_waiting_appointments" ADD CONSTRAINT "nextech_waiting_appointments_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "nextech_waiting_appointments_patient_idx" ON "nextech_waiting_appointments" USING btree ("practice_id","nextech_patient_id");