CREATE TABLE "nextech_connections" (
	"practice_id" integer PRIMARY KEY NOT NULL,
	"tokens" jsonb,
	"status" text NOT NULL,
	"last_error_reason" text,
	"last_error" text,
	"last_checked_at" timestamp with time zone NOT NULL,
	"connected_since" timestamp with time zone,
	CONSTRAINT "nextech_connections_status_check" CHECK ("nextech_connections"."status" in ('connected', 'failing'))
);
--> statement-breakpoint
ALTER TABLE "nextech_connections" ADD CONSTRAINT "nextech_connections_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;