-- Search by the starts of words, in any order (issue 29). `search_text` becomes a list of words,
-- each preceded by a space, so that a typed word matches the start of a word with
-- `LIKE '% word%'`, one per typed word, answered by the same trigram index as before:
-- - the first and last name as written, and again split at hyphens, apostrophes and periods
--   ("Smith-Jones" is found by "jones", "O'Brien" by "brien");
-- - the e-mail whole ("julia.anderson@" still finds it) and split at @ . _ + - ("anderson",
--   "example");
-- - the phone's digits, and for a North American number stored with its country code
--   ("+14085554743") its ten digits again without the 1, so "408-555" finds it.
-- The column is generated: dropping it drops its index, and the new one is computed for every row.
ALTER TABLE "patients" DROP COLUMN "search_text";--> statement-breakpoint
ALTER TABLE "patients" ADD COLUMN "search_text" text GENERATED ALWAYS AS (' ' || lower("patients"."first_name" || ' ' || "patients"."last_name") || ' ' || regexp_replace(lower("patients"."first_name" || ' ' || "patients"."last_name"), '[-''’.]+', ' ', 'g') || ' ' || lower(coalesce("patients"."email", '')) || ' ' || regexp_replace(lower(coalesce("patients"."email", '')), '[-@._+]+', ' ', 'g') || ' ' || regexp_replace(coalesce("patients"."phone", ''), '[^0-9]+', '', 'g') || ' ' || CASE WHEN regexp_replace(coalesce("patients"."phone", ''), '[^0-9]+', '', 'g') ~ '^1[0-9]{10}$' THEN substr(regexp_replace("patients"."phone", '[^0-9]+', '', 'g'), 2) ELSE '' END) STORED;--> statement-breakpoint
CREATE INDEX "patients_search_trgm_idx" ON "patients" USING gin ("search_text" gin_trgm_ops) WITH (fastupdate=false);
