/** The patients module's reusable reads. */
import { eq } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { activities, ledgerEntries } from '#server/db/schema.ts'

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
