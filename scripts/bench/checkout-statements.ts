/**
 * SQL statements per checkout (`npm run bench -- --only=checkout`): one visit of one line that
 * also redeems points with the patient's SMS code, `POST /api/visits` through the real API on an
 * in-memory PGlite, counting the statements the app sends to the database while the request runs
 * (drizzle's logger sees each one, savepoints included). PGlite opens and ends the transaction
 * itself (BEGIN and COMMIT), so those two are not among them, nor is the outbound worker's look for
 * due messages, which runs on its own timer. Two kinds are counted apart because
 * the checkout should need each once: reads of the patient's row, and lookups of an idempotency
 * key (a visit's or a ledger entry's).
 */
import { and, desc, eq } from 'drizzle-orm'
import { outbox, patients, practices } from '#server/db/schema.ts'
import {
  createPracticeFixture,
  createTestApp,
  pgliteBackendWith,
} from '#server/testing/test-app.ts'

/** What one checkout sent to the database. */
export type CheckoutStatements = {
  /** Every statement of the request, BEGIN and COMMIT aside. */
  statements: number
  /** Statements that read the `patients` table (locked or not). */
  patientReads: number
  /** Statements that look an idempotency key up. */
  keyLookups: number
  /** The statements themselves, in order (in .tmp/bench.json, to see what a change saved). */
  queries: string[]
}

export async function benchCheckoutStatements(): Promise<CheckoutStatements> {
  let counting = false
  const seen: string[] = []
  const backend = pgliteBackendWith({
    logger: {
      logQuery(query) {
        // The outbound worker looks for due messages on its own timer and after every kick:
        // its look is not the checkout's work, and when it runs is a matter of timing.
        const worker = query.startsWith('select "id" from "outbound_messages"')
        if (counting && !worker) seen.push(query)
      },
    },
  })
  const t = await createTestApp(backend)
  try {
    const practice = await createPracticeFixture(t.db, { name: 'Checkout Bench Clinic' })
    // Above 50 points a redemption needs the patient's code.
    await t.db
      .update(practices)
      .set({ redemption_code_threshold: 50 })
      .where(eq(practices.id, practice.practiceId))
    await t.db
      .update(patients)
      .set({ phone: '+1 555 010 4242' })
      .where(eq(patients.id, practice.patientId))
    const post = async (path: string, json: unknown, expected: number) => {
      const response = await t.request(path, { method: 'POST', token: practice.token, json })
      if (response.status !== expected) {
        throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
      }
      return response
    }
    await post(
      `/api/patients/${practice.patientId}/adjustments`,
      { points: 500, reason: 'opening balance', idempotencyKey: 'bench-opening' },
      201,
    )
    const sent = await post(
      `/api/patients/${practice.patientId}/redemption-code`,
      { points: 100 },
      201,
    )
    const { authyId } = (await sent.json()) as { authyId: string }
    await t.deliver()
    const [message] = await t.db
      .select({ code: outbox.code })
      .from(outbox)
      .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, '+15550104242')))
      .orderBy(desc(outbox.id))
      .limit(1)
    if (!message?.code) throw new Error('no code reached the outbox')

    counting = true
    await post(
      '/api/visits',
      {
        patient_id: practice.patientId,
        items: [{ procedure_id: practice.procedureId, quantity: 1 }],
        redemption: { points: 100, verification: { authyId, code: message.code } },
        idempotencyKey: 'bench-checkout',
      },
      201,
    )
    counting = false

    const text = seen.map((query) => query.toLowerCase())
    return {
      statements: seen.length,
      patientReads: text.filter((q) => q.startsWith('select') && /from "patients"/.test(q)).length,
      keyLookups: text.filter((q) => q.startsWith('select') && /"idempotency_key" = \$/.test(q))
        .length,
      queries: seen,
    }
  } finally {
    await t.close()
  }
}
