CREATE TABLE "test_gateway_customers" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"card_brand" text NOT NULL,
	"card_last4" text NOT NULL,
	"card_exp_month" integer NOT NULL,
	"card_exp_year" integer NOT NULL,
	"billing" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "test_gateway_idempotency" (
	"operation" text NOT NULL,
	"key" text NOT NULL,
	"answer" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "test_gateway_idempotency_operation_key_pk" PRIMARY KEY("operation","key")
);
--> statement-breakpoint
CREATE TABLE "test_gateway_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"plan_ids" jsonb NOT NULL,
	"coupon" text,
	"coupon_duration" text,
	"status" text DEFAULT 'active' NOT NULL,
	"billing_cycle_anchor" timestamp with time zone NOT NULL,
	"periods" integer DEFAULT 1 NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"canceled_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "test_gateway_subscriptions_status_check" CHECK ("test_gateway_subscriptions"."status" in ('active', 'canceled'))
);
--> statement-breakpoint
ALTER TABLE "test_gateway_subscriptions" ADD CONSTRAINT "test_gateway_subscriptions_customer_id_test_gateway_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."test_gateway_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "test_gateway_subscriptions_customer_idx" ON "test_gateway_subscriptions" USING btree ("customer_id");