/** The points statement a visit sends the patient. */
import { UNDO_WINDOW_MS } from '#domain/visits.ts'
import type { Transaction } from '#server/db/client.ts'
import {
  patientTemplateMail,
  pointsStatementEmail,
  walletLink,
} from '#server/modules/patient-mail/index.ts'
import type { CheckoutDeps, LockedPatient } from './shared.ts'

/**
 * Queues the patient's points statement after a visit in the visit's
 * transaction, when the patient has an e-mail and is subscribed ({@link patientTemplateMail}'s gate).
 * It leaves when the visit's undo window closes: an undo within it deletes it, so a
 * patient is never told of points that were taken back. The patient is the row the transaction
 * locked (nothing else changes it meanwhile); `balance` is theirs after the visit's postings.
 */
export async function queueStatement(
  deps: Pick<CheckoutDeps, 'outbound' | 'publicUrl'>,
  tx: Transaction,
  patient: LockedPatient,
  visit: { id: number; earned: number; balance: number; at: Date },
) {
  const message = patientTemplateMail(pointsStatementEmail, patient, {
    publicUrl: deps.publicUrl,
    practice: {
      practice_name: patient.practice_name,
      // "See all my points": the practice's wallet.
      wallet_url: walletLink(deps.publicUrl, patient.practice_id),
    },
    firstName: patient.first_name,
    earned: visit.earned,
    balance: visit.balance,
    visitedAt: visit.at.toISOString(),
  })
  if (message) {
    await deps.outbound.enqueue(tx, message, {
      sendAt: new Date(visit.at.getTime() + UNDO_WINDOW_MS),
      visitId: visit.id,
    })
  }
}
