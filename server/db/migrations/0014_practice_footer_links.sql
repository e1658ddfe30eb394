ALTER TABLE "practices" ADD COLUMN "footer_about_url" text;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "footer_privacy_url" text;--> statement-breakpoint
ALTER TABLE "practices" ADD COLUMN "footer_support" text;