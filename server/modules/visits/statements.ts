/** The points statement a visit sends the patient (PORTAL.md section 6). */
import { eq } from 'drizzle-orm'
import { UNDO_WINDOW_MS } from '#domain/visits.ts'
import type { Transaction } from '#server/db/client.ts'
import { patients, practices } from '#server/db/schema.ts'
import { patientMail, statementContent } from '#server/modules/patient-mail/index.ts'
import type { CheckoutDeps } from './shared.ts'

/**
 * Queues the patient's points statement after a visit (PORTAL.md section 6) in the visit's
 * transaction, when the patient has an e-mail and is subscribed ({@link patientMail}'s gate).
 * It leaves when the visit's undo window closes (issue 28): an undo within it deletes it, so a
 * patient is never told of points that were taken back.
 */
export async function queueStatement(
  deps: Pick<CheckoutDeps, 'outbound' | 'publicUrl'>,
  tx: Transaction,
  patientId: number,
  visitId: number,
  earned: number,
  at: Date,
) {
  const [row] = await tx
    .select({
      first_name: patients.first_name,
      email: patients.email,
      email_subscription: patients.email_subscription,
      archived_at: patients.archived_at,
      unsubscribe_id: patients.unsubscribe_id,
      points: patients.points,
      practice_name: practices.practice_name,
    })
    .from(patients)
    .innerJoin(practices, eq(practices.id, patients.practice_id))
    .where(eq(patients.id, patientId))
  if (!row) return
  const message = patientMail(
    deps.publicUrl,
    row,
    row,
    statementContent(row, row, { earned, balance: row.points, visitedAt: at }),
  )
  if (message) {
    await deps.outbound.enqueue(tx, message, {
      sendAt: new Date(at.getTime() + UNDO_WINDOW_MS),
      visitId,
    })
  }
}
