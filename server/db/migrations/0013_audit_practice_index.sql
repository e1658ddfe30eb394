-- The activity log (issue 19) reads one practice's audit events newest first. (The snapshot of
-- this migration also records patient_import_rows, which 0012 created without one.)
CREATE INDEX "audit_events_practice_idx" ON "audit_events" USING btree ("practice_id","id");
