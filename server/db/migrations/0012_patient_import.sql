CREATE TABLE "patient_import_rows" (
	"practice_id" integer NOT NULL,
	"file_id" text NOT NULL,
	"row_number" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_import_rows_practice_id_file_id_row_number_pk" PRIMARY KEY("practice_id","file_id","row_number")
);
--> statement-breakpoint
ALTER TABLE "patient_import_rows" ADD CONSTRAINT "patient_import_rows_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_import_rows" ADD CONSTRAINT "patient_import_rows_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_import_rows" ADD CONSTRAINT "patient_import_rows_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
