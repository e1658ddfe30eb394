-- Patient search as you type (issue 16): trigram indexes let `ILIKE '%term%'` on the names, the
-- e-mail and the phone read the index instead of every patient of the practice.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "patients_name_trgm_idx" ON "patients" USING gin (("first_name" || ' ' || "last_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "patients_name_reversed_trgm_idx" ON "patients" USING gin (("last_name" || ' ' || "first_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "patients_email_trgm_idx" ON "patients" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "patients_phone_trgm_idx" ON "patients" USING gin ("phone" gin_trgm_ops);
