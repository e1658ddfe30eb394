-- The activity log (issue 19) reads one practice's audit events newest first.
CREATE INDEX "audit_events_practice_idx" ON "audit_events" USING btree ("practice_id","id");
