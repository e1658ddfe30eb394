-- E-mails queued in bulk as a template and its data (docs/decisions/018-email-templates.md): the
-- outbound worker renders such a row once and writes its subject, text and HTML before it delivers
-- them, so a row has either its text or its template and data.
ALTER TABLE "outbound_messages" ALTER COLUMN "text" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD COLUMN "template" text;--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD COLUMN "data" jsonb;--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD CONSTRAINT "outbound_messages_body_check" CHECK ("outbound_messages"."text" is not null or ("outbound_messages"."template" is not null and "outbound_messages"."data" is not null));
