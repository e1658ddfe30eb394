-- Offers with value (issue 28, item 4). Existing offers carry none (both discounts null, procedure_ids
-- empty) and existing visits took nothing off (discount_cents 0): their total_cents is already what
-- the patient paid, so no row needs changing.
ALTER TABLE "visits" DROP CONSTRAINT "visits_total_check";--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "discount_cents" integer;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "discount_percent" integer;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "procedure_ids" integer[] DEFAULT '{}'::integer[] NOT NULL;--> statement-breakpoint
ALTER TABLE "visit_items" ADD COLUMN "discount_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "discount_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "promotions" ADD CONSTRAINT "promotions_discount_check" CHECK (("promotions"."discount_cents" is null or "promotions"."discount_cents" > 0) and ("promotions"."discount_percent" is null or "promotions"."discount_percent" between 1 and 100) and ("promotions"."discount_cents" is null or "promotions"."discount_percent" is null));--> statement-breakpoint
ALTER TABLE "visit_items" ADD CONSTRAINT "visit_items_discount_check" CHECK ("visit_items"."discount_cents" >= 0 and "visit_items"."discount_cents"::bigint <= "visit_items"."unit_price_cents"::bigint * "visit_items"."quantity");--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_total_check" CHECK ("visits"."total_cents" >= 0 and "visits"."discount_cents" >= 0);