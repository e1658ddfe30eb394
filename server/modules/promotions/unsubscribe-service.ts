import { and, eq } from 'drizzle-orm'
import { recordWithin } from '#server/audit/audit.ts'
import type { Database } from '#server/db/client.ts'
import { patients } from '#server/db/schema.ts'

// Unsubscribe tokens are base64url (randomToken); anything else cannot match and is not looked up.
const UNSUBSCRIBE_ID = /^[\w-]{16,128}$/

/** The refusal of a token of the wrong shape (see {@link isUnsubscribeTokenShaped}). */
export const UNSUBSCRIBE_LINK_INVALID = 'This unsubscribe link is not valid.'

/**
 * Whether `token` has the shape of an unsubscribe token. Only a token of another shape may be
 * answered as not valid: that the shape is wrong is plain from the token itself, so it
 * tells nothing about which links exist. A well-formed token is answered alike whether or not it
 * names a patient, so that nobody can find out by trying.
 */
export function isUnsubscribeTokenShaped(token: string): boolean {
  return UNSUBSCRIBE_ID.test(token)
}

/**
 * What the spec's unsubscribe page does (`PUT /patients/unsubscribe/{token}`) and the RFC 8058
 * one-click `POST /unsubscribe/{token}` does too: the patient whose link it is stops receiving
 * marketing e-mail (`email_subscription` false). Answers whether the token named a patient;
 * running it again changes nothing. The link of a patient who was merged into another
 * unsubscribes the patient it was merged into too: an e-mail sent before the merge still reaches
 * the same person.
 */
export async function unsubscribeByToken(db: Database, token: string): Promise<boolean> {
  if (!UNSUBSCRIBE_ID.test(token)) return false
  const updated = await db
    .update(patients)
    .set({ email_subscription: false })
    .where(eq(patients.unsubscribe_id, token))
    .returning({ id: patients.id, merged_into_id: patients.merged_into_id })
  // A merged patient's kept one may itself have been merged later: follow the links (a few).
  let next = updated[0]?.merged_into_id ?? null
  for (let hops = 0; next !== null && hops < 10; hops++) {
    const [kept] = await db
      .update(patients)
      .set({ email_subscription: false })
      .where(eq(patients.id, next))
      .returning({ merged_into_id: patients.merged_into_id })
    next = kept?.merged_into_id ?? null
  }
  return updated.length > 0
}

/**
 * "Subscribe again" on the unsubscribe page: the patient whose link it is receives the
 * practice's marketing e-mail again (`email_subscription` true), and the change is in the
 * practice's activity log with no staff member (the patient did it), written with the same
 * transaction. Idempotent: a patient already subscribed stays so, `changed` is false and nothing
 * new is on record. Answers null for a token that names nobody.
 */
export async function resubscribeByToken(
  db: Database,
  token: string,
  request: { ip: string; now: Date },
): Promise<{ patientId: number; practiceId: number; changed: boolean } | null> {
  if (!UNSUBSCRIBE_ID.test(token)) return null
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(patients)
      .set({ email_subscription: true })
      .where(and(eq(patients.unsubscribe_id, token), eq(patients.email_subscription, false)))
      .returning({ id: patients.id, practice_id: patients.practice_id })
    if (updated) {
      await recordWithin(
        tx,
        {
          action: 'patient.resubscribed',
          userId: null,
          practiceId: updated.practice_id,
          ip: request.ip,
          details: { patient_id: updated.id },
        },
        request.now,
      )
      return { patientId: updated.id, practiceId: updated.practice_id, changed: true }
    }
    const [found] = await tx
      .select({ id: patients.id, practice_id: patients.practice_id })
      .from(patients)
      .where(eq(patients.unsubscribe_id, token))
    return found ? { patientId: found.id, practiceId: found.practice_id, changed: false } : null
  })
}
