CREATE TABLE "promotion_sends" (
	"id" serial PRIMARY KEY NOT NULL,
	"practice_id" integer NOT NULL,
	"promotion_id" integer NOT NULL,
	"patient_id" integer NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "patient_promotions" DROP CONSTRAINT "patient_promotions_status_check";--> statement-breakpoint
ALTER TABLE "patient_promotions" DROP CONSTRAINT "patient_promotions_patient_id_promotion_id_pk";--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "id" serial PRIMARY KEY NOT NULL;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "practice_id" integer;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "title" text;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "points_cost" integer;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "bonus_points" integer;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "claimed_by" integer;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD COLUMN "expired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "max_redemptions" integer;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "per_patient_limit" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "code" text;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "created_by" integer;--> statement-breakpoint
ALTER TABLE "promotions" ADD COLUMN "updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "promotion_sends" ADD CONSTRAINT "promotion_sends_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promotion_sends" ADD CONSTRAINT "promotion_sends_promotion_id_promotions_id_fk" FOREIGN KEY ("promotion_id") REFERENCES "public"."promotions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promotion_sends" ADD CONSTRAINT "promotion_sends_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "promotion_sends_token_unique" ON "promotion_sends" USING btree ("token");--> statement-breakpoint
CREATE INDEX "promotion_sends_promotion_idx" ON "promotion_sends" USING btree ("promotion_id");--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD CONSTRAINT "patient_promotions_practice_id_practices_id_fk" FOREIGN KEY ("practice_id") REFERENCES "public"."practices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD CONSTRAINT "patient_promotions_claimed_by_users_id_fk" FOREIGN KEY ("claimed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promotions" ADD CONSTRAINT "promotions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "patient_promotions_promotion_idx" ON "patient_promotions" USING btree ("promotion_id","status");--> statement-breakpoint
CREATE INDEX "patient_promotions_patient_idx" ON "patient_promotions" USING btree ("patient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "patient_promotions_open_unique" ON "patient_promotions" USING btree ("patient_id","promotion_id") WHERE "patient_promotions"."status" = 'claimed';--> statement-breakpoint
ALTER TABLE "patient_promotions" ADD CONSTRAINT "patient_promotions_status_check" CHECK ("patient_promotions"."status" in ('claimed', 'redeemed', 'expired'));--> statement-breakpoint
ALTER TABLE "promotions" ADD CONSTRAINT "promotions_points_check" CHECK ("promotions"."points" >= 0 and "promotions"."points_cost" >= 0);--> statement-breakpoint
ALTER TABLE "promotions" ADD CONSTRAINT "promotions_limits_check" CHECK (("promotions"."max_redemptions" is null or "promotions"."max_redemptions" > 0) and "promotions"."per_patient_limit" > 0);--> statement-breakpoint
-- Offers made before the lifecycle were visible to patients: they count as published.
UPDATE "promotions" SET "published_at" = "created_at" WHERE "published_at" IS NULL;--> statement-breakpoint
UPDATE "patient_promotions" AS c SET "practice_id" = p."practice_id" FROM "promotions" AS p WHERE p."id" = c."promotion_id" AND c."practice_id" IS NULL;
