ALTER TABLE "coupons" ADD COLUMN "duration" text DEFAULT 'once' NOT NULL;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "stripe_subscription_id" text;--> statement-breakpoint
ALTER TABLE "coupons" ADD CONSTRAINT "coupons_duration_check" CHECK ("coupons"."duration" in ('once', 'forever'));