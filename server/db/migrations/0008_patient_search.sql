-- Patient search as you type (issue 16). One lower-cased text per patient (both orders of the
-- name, the e-mail, the phone digits), kept by the database, with a trigram index: a search is one
-- `LIKE '%term%'` that reads the index instead of four ILIKEs over every patient of the practice.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower("patients"."first_name" || ' ' || "patients"."last_name" || ' ' || "patients"."last_name" || ' ' || "patients"."first_name" || ' ' || coalesce("patients"."email", '') || ' ' || coalesce("patients"."phone", ''))) STORED;--> statement-breakpoint
CREATE INDEX "patients_search_trgm_idx" ON "patients" USING gin ("search_text" gin_trgm_ops) WITH (fastupdate=false);
