-- Uploaded images move into the database (issue 30): every server process on it serves every
-- upload, and a database backup holds them. The files already under DATA_DIR/uploads are read in
-- at the next start (server/services/upload-import.ts), which a migration cannot do: it sees the
-- database, not the folder.
CREATE TABLE "upload_contents" (
	"storage_key" text PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"bytes" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upload_contents_content_type_check" CHECK ("upload_contents"."content_type" in ('image/png', 'image/jpeg', 'image/webp')),
	CONSTRAINT "upload_contents_size_check" CHECK ("upload_contents"."size" = octet_length("upload_contents"."bytes") and "upload_contents"."size" <= 2097152),
	CONSTRAINT "upload_contents_dimensions_check" CHECK ("upload_contents"."width" > 0 and "upload_contents"."height" > 0)
);
--> statement-breakpoint
ALTER TABLE "upload_contents" ADD CONSTRAINT "upload_contents_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upload_contents_practice_idx" ON "upload_contents" USING btree ("practice_id");
