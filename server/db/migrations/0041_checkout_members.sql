ALTER TABLE "membership_bank_entries" ADD COLUMN "visit_id" integer;--> statement-breakpoint
ALTER TABLE "redemption_codes" ADD COLUMN "bank_cents" integer;--> statement-breakpoint
ALTER TABLE "visit_items" ADD COLUMN "allowance_units" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "visit_items" ADD COLUMN "member_discount_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "membership_id" integer;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "allowance_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "member_discount_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "bank_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "membership_bank_entries" ADD CONSTRAINT "membership_bank_entries_visit_id_visits_id_fk" FOREIGN KEY ("visit_id") REFERENCES "public"."visits"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_membership_id_memberships_id_fk" FOREIGN KEY ("membership_id") REFERENCES "public"."memberships"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "membership_bank_visit_unique" ON "membership_bank_entries" USING btree ("visit_id","kind") WHERE "membership_bank_entries"."visit_id" is not null;--> statement-breakpoint
ALTER TABLE "visit_items" ADD CONSTRAINT "visit_items_member_check" CHECK ("visit_items"."allowance_units" >= 0 and "visit_items"."allowance_units" <= "visit_items"."quantity" and "visit_items"."member_discount_cents" >= 0);--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_member_check" CHECK ("visits"."bank_cents" >= 0 and "visits"."bank_cents" <= "visits"."total_cents" and "visits"."allowance_cents" >= 0 and "visits"."member_discount_cents" >= 0);