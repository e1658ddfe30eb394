-- Catalogue names are unique per practice among active items (issue 29): "Botox (per unit)" twice
-- is refused, whatever its case and surrounding spaces; archived items do not count, so an item can
-- be archived and a new one take its name. Active duplicates already stored keep their first item
-- (lowest id) as it is and the others get their id added to the name ("Botox (per unit)
-- (duplicate 17)"), so that the migration never fails and the practice sees which to merge or archive.
UPDATE "procedures" AS p SET "name" = p."name" || ' (duplicate ' || p."id" || ')'
WHERE p."archived_at" IS NULL AND EXISTS (
  SELECT 1 FROM "procedures" AS q
  WHERE q."practice_id" = p."practice_id" AND q."archived_at" IS NULL AND q."id" < p."id"
    AND lower(btrim(q."name")) = lower(btrim(p."name"))
);--> statement-breakpoint
UPDATE "products" AS p SET "name" = p."name" || ' (duplicate ' || p."id" || ')'
WHERE p."archived_at" IS NULL AND EXISTS (
  SELECT 1 FROM "products" AS q
  WHERE q."practice_id" = p."practice_id" AND q."archived_at" IS NULL AND q."id" < p."id"
    AND lower(btrim(q."name")) = lower(btrim(p."name"))
);--> statement-breakpoint
CREATE UNIQUE INDEX "procedures_practice_active_name_unique" ON "procedures" USING btree ("practice_id",lower(btrim("name"))) WHERE "procedures"."archived_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "products_practice_active_name_unique" ON "products" USING btree ("practice_id",lower(btrim("name"))) WHERE "products"."archived_at" is null;
