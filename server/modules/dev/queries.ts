import { desc, eq } from 'drizzle-orm'
import type { OutboxMessage } from '#domain/practice-data.ts'
import type { Database } from '#server/db/client.ts'
import { outbox, patients } from '#server/db/schema.ts'

/** How many messages the outbox shows: plenty for a developer or a test run. */
const OUTBOX_LIMIT = 200

/** The newest messages of the outbox, newest first, in the `OutboxMessage` shape. */
export async function latestOutboxMessages(db: Database): Promise<OutboxMessage[]> {
  const rows = await db
    .select()
    .from(outbox)
    .orderBy(desc(outbox.sent_at), desc(outbox.id))
    .limit(OUTBOX_LIMIT)
  return rows.map((row) => ({
    channel: row.channel === 'sms' ? 'sms' : 'email',
    to: row.to,
    subject: row.subject,
    text: row.text,
    code: row.code,
    link: row.link,
    ...(row.channel === 'email' ? { html: row.html, headers: row.headers } : {}),
    sentAt: row.sent_at.toISOString(),
  }))
}

/** A patient's unsubscribe token, or undefined when no patient has the id. */
export async function unsubscribeIdOf(
  db: Database,
  patientId: number,
): Promise<{ unsubscribe_id: string } | undefined> {
  const [row] = await db
    .select({ unsubscribe_id: patients.unsubscribe_id })
    .from(patients)
    .where(eq(patients.id, patientId))
    .limit(1)
  return row
}
