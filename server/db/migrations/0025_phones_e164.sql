-- Patients' phones in one form (issue 29): E.164, as `POST /patients` now stores them, so that
-- "(408) 555-4743" and "+1 408 555 4743" are compared as the one number they are. Only a value
-- written with phone characters (digits, spaces, + ( ) . - /) is read: its digits alone, 10 of
-- them a North American number ('+1' || digits), 11 starting with 1 the same with its country
-- code, and a value written with a leading + an international number ('+' || digits). Anything
-- else (7 digits without an area code, letters, an extension) is left as it is; the app shows it
-- as stored. No unique index: two patients of a practice whose phones (or e-mails) now agree both
-- stay, for the review of possible duplicates. `search_text` (migration 0008) is generated from
-- the phone, so it follows.
UPDATE "patients" SET "phone" = CASE
  WHEN btrim("phone") LIKE '+%' THEN '+' || regexp_replace("phone", '[^0-9]', '', 'g')
  WHEN length(regexp_replace("phone", '[^0-9]', '', 'g')) = 10 THEN '+1' || regexp_replace("phone", '[^0-9]', '', 'g')
  ELSE '+' || regexp_replace("phone", '[^0-9]', '', 'g')
END
WHERE "phone" ~ '^[0-9[:space:]().+/-]+$'
  AND (
    btrim("phone") LIKE '+%'
    OR length(regexp_replace("phone", '[^0-9]', '', 'g')) = 10
    OR regexp_replace("phone", '[^0-9]', '', 'g') ~ '^1[0-9]{10}$'
  )
  AND regexp_replace("phone", '[^0-9]', '', 'g') <> '';
