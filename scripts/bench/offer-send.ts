/**
 * "Send to patients" at scale (`npm run bench -- --only=send`): one practice with
 * 10,000 subscribed patients and a live offer; the time of `POST /api/promotions/{id}/send` (the
 * request queues every e-mail and never waits for the sending), then the worker's time to drain
 * the queue into the development outbox. On PGlite (a fresh temporary DATA_DIR) and on
 * PostgreSQL when `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` is set (scale.ts's databases).
 */
import { and, count, eq, sql } from 'drizzle-orm'
import { outboundMessages, outbox, promotions } from '#server/db/schema.ts'
import { createMember, createPracticeFixture, createTestApp } from '#server/testing/test-app.ts'
import { type ScaleDatabase, scaleDatabases } from './scale.ts'

/** One database's figures. */
export type OfferSendRun = {
  database: string
  patients: number
  /** The send request, from request to answer. */
  requestMs: number
  /** E-mails the request queued. */
  queued: number
  /** The worker's time to deliver them all to the outbox. */
  drainMs: number
}

export const OFFER_SEND_PATIENTS = 10_000

async function runOne(database: ScaleDatabase, size: number): Promise<OfferSendRun> {
  const t = await createTestApp(database.backend)
  try {
    const practice = await createPracticeFixture(t.db, { name: 'Send Bench Clinic' })
    const manager = await createMember(t.db, practice.practiceId, 'Manager')
    await t.db.execute(sql`
      insert into patients (practice_id, first_name, last_name, email, unsubscribe_id, email_subscription)
      select ${practice.practiceId}, 'Pat' || n, 'Bench', 'pat' || n || '@send.example',
        'bench-unsubscribe-' || n || '-' || md5(n::text), true
      from generate_series(1, ${size - 1}) as n`)
    await t.db.execute(sql`analyze patients`)
    const [offer] = await t.db
      .insert(promotions)
      .values({
        practice_id: practice.practiceId,
        title: 'Spring peel',
        description: 'Half off a peel this spring.',
        published_at: new Date(Date.now() - 60_000),
        starts_at: new Date(Date.now() - 60_000),
        ends_at: new Date(Date.now() + 30 * 86_400_000),
      })
      .returning({ id: promotions.id })
    if (!offer) throw new Error('no offer')
    const started = performance.now()
    const response = await t.app.request(`/api/promotions/${offer.id}/send`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${manager.token}` },
    })
    const requestMs = performance.now() - started
    if (response.status !== 200) {
      throw new Error(`the send answered ${response.status}: ${await response.text()}`)
    }
    const [queued] = await t.db
      .select({ n: count() })
      .from(outboundMessages)
      .where(eq(outboundMessages.template, 'offer'))
    const drainStarted = performance.now()
    await t.deliver()
    const drainMs = performance.now() - drainStarted
    const [delivered] = await t.db
      .select({ n: count() })
      .from(outbox)
      .where(and(eq(outbox.channel, 'email'), eq(outbox.subject, 'Send Bench Clinic: Spring peel')))
    if (Number(delivered?.n) !== Number(queued?.n)) {
      throw new Error(`${delivered?.n} of ${queued?.n} e-mails reached the outbox`)
    }
    return {
      database: database.label,
      patients: size,
      requestMs,
      queued: Number(queued?.n ?? 0),
      drainMs,
    }
  } finally {
    await t.close()
  }
}

/** The send measured on every database of the scale part. */
export async function benchOfferSend(size = OFFER_SEND_PATIENTS): Promise<OfferSendRun[]> {
  const runs: OfferSendRun[] = []
  for (const database of scaleDatabases()) runs.push(await runOne(database, size))
  return runs
}
