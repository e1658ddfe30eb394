/** The patients module's reusable reads. */
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { activities, ledgerEntries, patients } from '#server/db/schema.ts'

/** The activities recorded for a patient (claims, redemptions, visits), in no order. */
export function recordedActivities(db: Database, patientId: number) {
  return db
    .select({
      id: activities.id,
      practice_id: activities.practice_id,
      patient_id: activities.patient_id,
      kind: activities.kind,
      description: activities.description,
      points: activities.points,
      created_at: activities.created_at,
    })
    .from(activities)
    .where(eq(activities.patient_id, patientId))
}

/** Every ledger entry of a patient, in no order. */
export function ledgerEntriesOf(db: Database, patientId: number) {
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId))
}

/**
 * How many patients the practice has (archived ones left out), how many receive e-mail and how
 * many became clients, counted in the database.
 */
export async function patientCounts(db: Database, practiceId: number) {
  const [row] = await db
    .select({
      patients: sql<number>`count(*)::int`,
      subscribed: sql<number>`count(*) filter (where ${patients.email_subscription})::int`,
      converted: sql<number>`count(*) filter (where ${patients.converted})::int`,
    })
    .from(patients)
    .where(and(eq(patients.practice_id, practiceId), isNull(patients.archived_at)))
  return {
    patients: Number(row?.patients ?? 0),
    subscribed: Number(row?.subscribed ?? 0),
    converted: Number(row?.converted ?? 0),
  }
}
