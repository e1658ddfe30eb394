-- The checkout's new references stay within the row's practice (migrations 0031 and 0040): a
-- visit's membership, a bank entry's visit and a plan change's version (0042) are the same
-- practice's.
DROP TRIGGER IF EXISTS "visits_same_practice" ON "visits";--> statement-breakpoint
CREATE TRIGGER "visits_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "patient_id", "appointment_id", "created_by", "approved_by", "undone_by", "membership_id" ON "visits" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('patient_id', 'patients', 'appointment_id', 'appointments', 'created_by', 'users', 'approved_by', 'users', 'undone_by', 'users', 'membership_id', 'memberships');--> statement-breakpoint
DROP TRIGGER IF EXISTS "membership_bank_entries_same_practice" ON "membership_bank_entries";--> statement-breakpoint
CREATE TRIGGER "membership_bank_entries_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id", "visit_id" ON "membership_bank_entries" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships', 'visit_id', 'visits');
--> statement-breakpoint
DROP TRIGGER IF EXISTS "membership_events_same_practice" ON "membership_events";--> statement-breakpoint
CREATE TRIGGER "membership_events_same_practice" BEFORE INSERT OR UPDATE OF "practice_id", "membership_id", "user_id", "plan_version_id" ON "membership_events" FOR EACH ROW EXECUTE FUNCTION "tenant_same_practice"('membership_id', 'memberships', 'user_id', 'users', 'plan_version_id', 'membership_plan_versions');
