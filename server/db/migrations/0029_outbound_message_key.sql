-- A stable random key per queued message (issue 30): the e-mail's Message-ID is built from it and
-- the PUBLIC_URL host, so a message sent again after a crash is recognisably the same one (and a
-- provider that drops duplicates by Message-ID drops it). Rows already queued get a key of their own.
ALTER TABLE "outbound_messages" ADD COLUMN "message_key" uuid DEFAULT gen_random_uuid() NOT NULL;
