ALTER TABLE "outbound_messages" ADD COLUMN "claim_token" text;--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD COLUMN "claimed_at" timestamp with time zone;