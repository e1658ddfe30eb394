import { eq } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { patients } from '#server/db/schema.ts'

// Unsubscribe tokens are base64url (randomToken); anything else cannot match and is not looked up.
const UNSUBSCRIBE_ID = /^[\w-]{16,128}$/

/**
 * What the spec's unsubscribe page does (`PUT /patients/unsubscribe/{token}`) and the RFC 8058
 * one-click `POST /unsubscribe/{token}` does too: the patient whose link it is stops receiving
 * marketing e-mail (`email_subscription` false). Answers whether the token named a patient;
 * running it again changes nothing.
 */
export async function unsubscribeByToken(db: Database, token: string): Promise<boolean> {
  if (!UNSUBSCRIBE_ID.test(token)) return false
  const updated = await db
    .update(patients)
    .set({ email_subscription: false })
    .where(eq(patients.unsubscribe_id, token))
    .returning({ id: patients.id })
  return updated.length > 0
}
