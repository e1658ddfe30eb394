ALTER TABLE "procedures" ALTER COLUMN "points" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "procedures" ALTER COLUMN "points" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "points" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "points" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "procedures" ADD COLUMN "min_days_between" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "procedures" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "min_days_between" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "archived_at" timestamp with time zone;