import { and, desc, eq, sql } from 'drizzle-orm'
import fc from 'fast-check'
import * as v from 'valibot'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { describeEntry, LedgerPostingSchema } from '#domain/ledger.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import {
  RedemptionAnswerSchema,
  VISIT_MESSAGES,
  VisitAnswerSchema,
  VisitPreviewSchema,
  VisitUndoAnswerSchema,
} from '#domain/visits.ts'
import {
  appointments,
  auditEvents,
  ledgerEntries,
  outbox,
  patientPromotions,
  patients,
  practices,
  procedures,
  products,
  promotions,
  visits,
} from '#server/db/schema.ts'
import {
  messageOf,
  patientWithPoints,
  useMember,
  usePracticeFixture,
  useTestApp,
} from '#server/testing/suite.ts'
import { mintToken, testBackends } from '#server/testing/test-app.ts'
import { smsAddress } from './redemption-codes.ts'

const DAY = 86_400_000

describe('the SMS address of a patient phone', () => {
  it('keeps an international number and reads 10 digits as North American', () => {
    expect(smsAddress('+44 20 7946 0958')).toBe('+442079460958')
    expect(smsAddress('(555) 010-1006')).toBe('+15550101006')
    expect(smsAddress('15550101006')).toBe('+15550101006')
  })
})

describe.each(testBackends())('the front desk API on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')
  let staffToken: string
  let botoxId: number
  let serumId: number
  let peelId: number
  let promotionId: number
  let keyCount = 0
  const key = () => `visit-key-${Date.now()}-${keyCount++}`

  /** A fresh patient of the demo practice, with a phone, and `points` given by an adjustment. */
  const newPatient = async (points = 0, phone: string | null = null) =>
    (await patientWithPoints(t, points, phone ? { phone } : {})).id

  async function newAppointment(patientId: number, status = 'scheduled') {
    const [row] = await t.db
      .insert(appointments)
      .values({
        practice_id: t.demo.practiceId,
        patient_id: patientId,
        procedure_id: botoxId,
        starts_at: new Date(),
        status,
      })
      .returning({ id: appointments.id })
    if (!row) throw new Error('no appointment')
    return row.id
  }

  const post = (path: string, json: unknown, token = t.demo.adminToken) =>
    t.request(path, { method: 'POST', token, json })

  const recordVisit = (body: Record<string, unknown>, token = t.demo.adminToken) =>
    post('/api/visits', { idempotencyKey: key(), ...body }, token)

  const postRedemption = (
    patientId: number,
    body: Record<string, unknown>,
    token = t.demo.adminToken,
  ) => post(`/api/patients/${patientId}/redemptions`, body, token)

  const undoVisit = (visitId: number, token = t.demo.adminToken) =>
    post(`/api/visits/${visitId}/undo`, {}, token)

  /** The patient claims the promotion (as the offer page would). */
  async function claimPromotion(patientId: number, promotion: number) {
    await t.db.insert(patientPromotions).values({
      practice_id: t.demo.practiceId,
      patient_id: patientId,
      promotion_id: promotion,
      claimed_at: new Date(),
    })
  }

  /**
   * Sends one visit twice at once; checks both answer 201 with the same visit, and answers the
   * two answers.
   */
  async function recordTwiceAtOnce(body: Record<string, unknown>) {
    const [a, b] = await Promise.all([post('/api/visits', body), post('/api/visits', body)])
    expect([a.status, b.status]).toEqual([201, 201])
    const first = v.parse(VisitAnswerSchema, await a.json())
    const second = v.parse(VisitAnswerSchema, await b.json())
    expect(second.visit.id).toBe(first.visit.id)
    return [first, second] as const
  }

  /** The patient's visits, as stored. */
  const visitsOf = (patientId: number) =>
    t.db.select().from(visits).where(eq(visits.patient_id, patientId))

  async function appointmentStatus(appointmentId: number) {
    const [row] = await t.db
      .select({ status: appointments.status })
      .from(appointments)
      .where(eq(appointments.id, appointmentId))
    return row?.status
  }

  /** Sends the patient a code and reads it from the development outbox. */
  async function codeFor(
    patientId: number,
    amount: { points: number } | { promotion_id: number } = { points: 200 },
  ): Promise<{ authyId: string; code: string }> {
    const response = await post(`/api/patients/${patientId}/redemption-code`, amount)
    expect(response.status).toBe(201)
    const { authyId } = (await response.json()) as { authyId: string }
    await t.deliver()
    const [patient] = await t.db
      .select({ phone: patients.phone })
      .from(patients)
      .where(eq(patients.id, patientId))
    const [message] = await t.db
      .select({ code: outbox.code, text: outbox.text })
      .from(outbox)
      .where(
        and(
          eq(outbox.channel, 'sms'),
          eq(outbox.to, `+${(patient?.phone ?? '').replace(/\D/g, '')}`),
        ),
      )
      .orderBy(desc(outbox.id))
      .limit(1)
    if (!message?.code) throw new Error('no code in the outbox')
    expect(message.text).toContain(message.code)
    return { authyId, code: message.code }
  }

  async function balanceMatchesEntries(patientId: number) {
    const [row] = await t.db
      .select({
        cached: patients.points,
        sum: sql<number>`(select coalesce(sum(points), 0)::int from ledger_entries where patient_id = ${patientId})`,
      })
      .from(patients)
      .where(eq(patients.id, patientId))
    expect(Number(row?.sum)).toBe(row?.cached)
    expect(row?.cached).toBeGreaterThanOrEqual(0)
    return row?.cached ?? 0
  }

  const setThreshold = (threshold: number) =>
    t.db
      .update(practices)
      .set({ redemption_code_threshold: threshold })
      .where(eq(practices.id, t.demo.practiceId))

  beforeAll(async () => {
    staffToken = t.demo.staffToken
    const [botox] = await t.db
      .insert(procedures)
      .values({
        practice_id: t.demo.practiceId,
        name: 'Botox',
        price: 30000,
        points: 100,
        min_days_between: 90,
      })
      .returning({ id: procedures.id })
    const [peel] = await t.db
      .insert(procedures)
      .values({ practice_id: t.demo.practiceId, name: 'Glow Peel', price: 12000, points: 40 })
      .returning({ id: procedures.id })
    const [serum] = await t.db
      .insert(products)
      .values({ practice_id: t.demo.practiceId, name: 'Serum', price: 4550, points: null })
      .returning({ id: products.id })
    const [promotion] = await t.db
      .insert(promotions)
      .values({
        practice_id: t.demo.practiceId,
        title: 'Spring facial',
        points: 50,
        points_cost: 100,
      })
      .returning({ id: promotions.id })
    if (!botox || !peel || !serum || !promotion) throw new Error('no catalogue')
    botoxId = botox.id
    peelId = peel.id
    serumId = serum.id
    promotionId = promotion.id
    await t.db
      .update(practices)
      .set({ points_per_dollar: 2, point_value_cents: 10 })
      .where(eq(practices.id, t.demo.practiceId))
  })
  beforeEach(async () => {
    t.setNow(undefined)
    await setThreshold(0)
  })

  it('previews the lines, their points and the programme figures, and writes nothing', async () => {
    const patientId = await newPatient(70)
    const [before] = await t.db.select({ n: sql<number>`count(*)::int` }).from(visits)
    const response = await post('/api/visits/preview', {
      patient_id: patientId,
      items: [
        { procedure_id: peelId, quantity: 2 },
        { product_id: serumId, quantity: 1 },
        { product_id: serumId, quantity: 3, price_cents: 1000 },
      ],
    })
    expect(response.status).toBe(200)
    const preview = v.parse(VisitPreviewSchema, await response.json())
    expect(preview.lines).toEqual([
      {
        kind: 'procedure',
        item_id: peelId,
        name: 'Glow Peel',
        quantity: 2,
        unit_price_cents: 12000,
        points: 80,
        refused: null,
      },
      // $45.50 × 2 points per dollar, rounded down: 91.
      {
        kind: 'product',
        item_id: serumId,
        name: 'Serum',
        quantity: 1,
        unit_price_cents: 4550,
        points: 91,
        refused: null,
      },
      {
        kind: 'product',
        item_id: serumId,
        name: 'Serum',
        quantity: 3,
        unit_price_cents: 1000,
        points: 60,
        refused: null,
      },
    ])
    expect(preview).toMatchObject({
      points: 231,
      total_cents: 24000 + 4550 + 3000,
      balance: 70,
      point_value_cents: 10,
      redemption_code_threshold: 0,
    })
    const [after] = await t.db.select({ n: sql<number>`count(*)::int` }).from(visits)
    expect(after?.n).toBe(before?.n)
  })

  it('records a visit from an appointment in one go: earns, the appointment completed, audited without personal values', async () => {
    const patientId = await newPatient()
    const appointmentId = await newAppointment(patientId)
    const response = await recordVisit({
      patient_id: patientId,
      appointment_id: appointmentId,
      items: [
        { procedure_id: peelId, quantity: 1 },
        { product_id: serumId, quantity: 2 },
      ],
    })
    expect(response.status).toBe(201)
    const answer = v.parse(VisitAnswerSchema, await response.json())
    expect(answer.visit).toMatchObject({
      patient_id: patientId,
      appointment_id: appointmentId,
      total_cents: 12000 + 9100,
      undone_at: null,
    })
    expect(
      new Date(answer.visit.undo_until).getTime() - new Date(answer.visit.created_at).getTime(),
    ).toBe(10 * 60 * 1000)
    expect(answer.entries.map((e) => [e.kind, e.points, e.source_type, e.source_id])).toEqual([
      ['earn', 40, 'visit', answer.visit.id],
      ['earn', 182, 'visit', answer.visit.id],
    ])
    expect(answer.entries[0]?.created_by?.id).toBe(t.demo.admin.id)
    expect(answer.balance).toBe(222)
    expect(describeEntry(answer.entries[0] as never)).toBe('Earned 40 points for a visit')
    expect(await appointmentStatus(appointmentId)).toBe('completed')
    await balanceMatchesEntries(patientId)

    const read = await t.request(`/api/visits/${answer.visit.id}`, { token: staffToken })
    expect(read.status).toBe(200)
    expect(v.parse(VisitAnswerSchema, await read.json())).toEqual(answer)

    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'visit.recorded'))
      .orderBy(desc(auditEvents.id))
      .limit(1)
    expect(event?.details).toMatchObject({
      patient_id: patientId,
      visit_id: answer.visit.id,
      earned: 222,
      redeemed: 0,
    })
    expect(JSON.stringify(event?.details)).not.toMatch(/Robin|Desk|555/)

    // The same appointment again, with a new key: refused, nothing written.
    const again = await recordVisit({
      patient_id: patientId,
      appointment_id: appointmentId,
      items: [{ procedure_id: peelId, quantity: 1 }],
    })
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe(VISIT_MESSAGES.appointmentCompleted)
    const cancelled = await newAppointment(patientId, 'cancelled')
    const refused = await recordVisit({
      patient_id: patientId,
      appointment_id: cancelled,
      items: [],
    })
    expect(refused.status).toBe(409)
    expect(await messageOf(refused)).toBe(VISIT_MESSAGES.appointmentCancelled)
    expect(await balanceMatchesEntries(patientId)).toBe(222)
  })

  it('answers the same visit to two identical requests at once that complete one appointment', async () => {
    const patientId = await newPatient()
    const body = {
      patient_id: patientId,
      appointment_id: await newAppointment(patientId),
      idempotencyKey: key(),
      items: [{ procedure_id: peelId, quantity: 1 }],
    }
    const [first, second] = await recordTwiceAtOnce(body)
    expect(second.entries.map((e) => e.id)).toEqual(first.entries.map((e) => e.id))
    expect(await visitsOf(patientId)).toHaveLength(1)
    expect(await balanceMatchesEntries(patientId)).toBe(40)
  })

  it("commits a checkout's audit event with its entries: one event a checkout, none for a replay or a refusal", async () => {
    const patientId = await newPatient(100)
    const eventsOf = (action: string) =>
      t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.action, action),
            sql`${auditEvents.details}->>'patient_id' = ${String(patientId)}`,
          ),
        )
    const entriesOf = () =>
      t.db.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId))
    const body = {
      patient_id: patientId,
      idempotencyKey: key(),
      items: [{ procedure_id: peelId, quantity: 1 }],
      redemption: { points: 120, override: { reason: 'voucher' } },
    }
    const first = await post('/api/visits', body)
    expect(first.status).toBe(201)
    const visit = v.parse(VisitAnswerSchema, await first.json())
    expect((await post('/api/visits', body)).status).toBe(201)
    expect(await eventsOf('visit.recorded')).toEqual([
      {
        details: expect.objectContaining({
          visit_id: visit.visit.id,
          earned: 40,
          redeemed: 120,
          bonus: 0,
          override: true,
        }),
      },
    ])
    expect(await entriesOf()).toHaveLength(3)

    // Refused after its earn was posted: neither the earn nor an event is left.
    const refused = await recordVisit({
      patient_id: patientId,
      items: [{ procedure_id: peelId, quantity: 1 }],
      redemption: { points: 100, override: { reason: 'voucher' } },
    })
    expect(refused.status).toBe(409)
    expect(await eventsOf('visit.recorded')).toHaveLength(1)
    expect(await entriesOf()).toHaveLength(3)

    // An event that cannot be written fails the checkout it records: nothing is posted.
    await t.db.execute(
      sql.raw(`create function refuse_audit_of_patient() returns trigger language plpgsql as $$
        begin
          if new.details->>'patient_id' = '${patientId}' then raise exception 'no audit'; end if;
          return new;
        end $$`),
    )
    await t.db.execute(
      sql.raw(
        'create trigger refuse_audit_of_patient before insert on audit_events for each row execute function refuse_audit_of_patient()',
      ),
    )
    try {
      const unaudited = await recordVisit({
        patient_id: patientId,
        items: [{ procedure_id: peelId, quantity: 1 }],
      })
      expect(unaudited.status).toBe(500)
      const undone = await undoVisit(visit.visit.id)
      expect(undone.status).toBe(500)
    } finally {
      await t.db.execute(sql.raw('drop trigger refuse_audit_of_patient on audit_events'))
      await t.db.execute(sql.raw('drop function refuse_audit_of_patient()'))
    }
    expect(await entriesOf()).toHaveLength(3)
    expect(await visitsOf(patientId)).toHaveLength(1)

    // The undo likewise: one event with its reversals, none for the second undo.
    expect((await undoVisit(visit.visit.id)).status).toBe(201)
    expect((await undoVisit(visit.visit.id)).status).toBe(201)
    expect(await eventsOf('visit.undone')).toEqual([
      { details: expect.objectContaining({ visit_id: visit.visit.id, points: 80 }) },
    ])
    expect(await entriesOf()).toHaveLength(5)
    expect(await balanceMatchesEntries(patientId)).toBe(100)
  })

  it('posts once for two identical requests at once and for a replay after the first finished', async () => {
    const patientId = await newPatient()
    const body = {
      patient_id: patientId,
      idempotencyKey: key(),
      items: [{ procedure_id: peelId, quantity: 1 }],
    }
    const [first] = await recordTwiceAtOnce(body)
    const replay = v.parse(VisitAnswerSchema, await (await post('/api/visits', body)).json())
    expect(replay.visit.id).toBe(first.visit.id)
    expect(replay.entries.map((e) => e.id)).toEqual(first.entries.map((e) => e.id))
    expect(await visitsOf(patientId)).toHaveLength(1)
    expect(await balanceMatchesEntries(patientId)).toBe(40)

    const otherPatient = await newPatient()
    const reused = await post('/api/visits', { ...body, patient_id: otherPatient })
    expect(reused.status).toBe(409)
    expect(await messageOf(reused)).toBe(VISIT_MESSAGES.keyReused)
  })

  it('awards a procedure with minimum days again only once they have passed since the last award not reversed', async () => {
    const patientId = await newPatient()
    const start = new Date('2026-11-22T15:00:00Z')
    const at = async (date: Date) => {
      t.setNow(date)
      return mintToken(t.demo.admin, { now: date })
    }
    let token = await at(start)
    const first = await recordVisit(
      { patient_id: patientId, items: [{ procedure_id: botoxId, quantity: 1 }] },
      token,
    )
    expect(first.status).toBe(201)
    const firstVisit = v.parse(VisitAnswerSchema, await first.json())
    expect(firstVisit.lines[0]?.points).toBe(100)

    token = await at(new Date(start.getTime() + 10 * DAY))
    const preview = await post(
      '/api/visits/preview',
      {
        patient_id: patientId,
        items: [
          { procedure_id: botoxId, quantity: 2 },
          { procedure_id: peelId, quantity: 1 },
        ],
      },
      token,
    )
    const lines = v.parse(VisitPreviewSchema, await preview.json()).lines
    expect(lines[0]).toMatchObject({
      points: 0,
      refused: { reason: 'Botox earns points again on 2027-02-20.', opens_on: '2027-02-20' },
    })
    expect(lines[1]).toMatchObject({ points: 40, refused: null })
    const inside = await recordVisit(
      { patient_id: patientId, items: [{ procedure_id: botoxId, quantity: 1 }] },
      token,
    )
    const insideVisit = v.parse(VisitAnswerSchema, await inside.json())
    expect(insideVisit.lines[0]?.refused?.opens_on).toBe('2027-02-20')
    expect(insideVisit.entries).toEqual([])

    token = await at(new Date('2027-02-20T08:00:00Z'))
    const opened = await recordVisit(
      { patient_id: patientId, items: [{ procedure_id: botoxId, quantity: 1 }] },
      token,
    )
    const openedVisit = v.parse(VisitAnswerSchema, await opened.json())
    expect(openedVisit.lines[0]).toMatchObject({ points: 100, refused: null })
    // Two lines of the item in one visit: the second waits like a later visit would.
    const second = await newPatient()
    const both = v.parse(
      VisitAnswerSchema,
      await (
        await recordVisit(
          {
            patient_id: second,
            items: [
              { procedure_id: botoxId, quantity: 1 },
              { procedure_id: botoxId, quantity: 1 },
            ],
          },
          token,
        )
      ).json(),
    )
    expect(both.lines.map((l) => l.points)).toEqual([100, 0])

    // Undone, the award no longer counts: the window is counted from the last one not reversed.
    const undo = await undoVisit(openedVisit.visit.id, token)
    expect(undo.status).toBe(201)
    const after = await post(
      '/api/visits/preview',
      { patient_id: patientId, items: [{ procedure_id: botoxId, quantity: 1 }] },
      token,
    )
    expect(v.parse(VisitPreviewSchema, await after.json()).lines[0]?.points).toBe(100)
    await balanceMatchesEntries(patientId)
  })

  it("asks for the patient's code above the threshold, checks it, and uses it once for that patient only", async () => {
    const patientId = await newPatient(500)
    const redemption = { points: 200 }
    const noCode = await recordVisit({ patient_id: patientId, items: [], redemption })
    expect(noCode.status).toBe(403)
    expect(await messageOf(noCode)).toBe("The patient's code is needed to redeem 200 points.")

    const { authyId, code } = await codeFor(patientId)
    const wrong = await recordVisit({
      patient_id: patientId,
      items: [],
      redemption: {
        ...redemption,
        verification: { authyId, code: code === '000000' ? '111111' : '000000' },
      },
    })
    expect(wrong.status).toBe(422)
    expect(await messageOf(wrong)).toBe('The code is not correct.')

    const someoneElse = await newPatient(500)
    const elsewhere = await recordVisit({
      patient_id: someoneElse,
      items: [],
      redemption: { ...redemption, verification: { authyId, code } },
    })
    expect(elsewhere.status).toBe(422)
    expect(await messageOf(elsewhere)).toBe('The code is not correct.')

    const right = await recordVisit({
      patient_id: patientId,
      items: [{ procedure_id: peelId, quantity: 1 }],
      redemption: { ...redemption, verification: { authyId, code } },
    })
    expect(right.status).toBe(201)
    const answer = v.parse(VisitAnswerSchema, await right.json())
    expect(answer.entries.map((e) => [e.kind, e.points])).toEqual([
      ['earn', 40],
      ['redeem', -200],
    ])
    expect(answer.balance).toBe(340)
    expect(describeEntry(answer.entries[1] as never)).toBe('Redeemed 200 points at a visit')

    const reused = await recordVisit({
      patient_id: patientId,
      items: [],
      redemption: { ...redemption, verification: { authyId, code } },
    })
    expect(reused.status).toBe(422)
    expect(await messageOf(reused)).toBe(VISIT_MESSAGES.codeUsed)

    // Up to the threshold no code is asked.
    await setThreshold(300)
    const small = await recordVisit({
      patient_id: patientId,
      items: [],
      redemption: { points: 300 },
    })
    expect(small.status).toBe(201)
    expect(await balanceMatchesEntries(patientId)).toBe(40)
  })

  it('stops a code after 5 wrong attempts and lets it expire after 10 minutes', async () => {
    const patientId = await newPatient(500)
    const { authyId, code } = await codeFor(patientId)
    const wrongCode = code === '999999' ? '888888' : '999999'
    for (let i = 0; i < 5; i++) {
      const wrong = await postRedemption(patientId, {
        points: 10,
        idempotencyKey: key(),
        verification: { authyId, code: wrongCode },
      })
      expect(await messageOf(wrong)).toBe('The code is not correct.')
    }
    const locked = await postRedemption(patientId, {
      points: 10,
      idempotencyKey: key(),
      verification: { authyId, code },
    })
    expect(locked.status).toBe(422)
    expect(await messageOf(locked)).toBe(VISIT_MESSAGES.codeAttempts)

    t.setNow(new Date(Date.now() + 60_000))
    const fresh = await codeFor(patientId)
    const later = new Date(Date.now() + 12 * 60_000)
    t.setNow(later)
    const expired = await postRedemption(
      patientId,
      { points: 10, idempotencyKey: key(), verification: fresh },
      await mintToken(t.demo.admin, { now: later }),
    )
    expect(expired.status).toBe(422)
    expect(await messageOf(expired)).toBe(VISIT_MESSAGES.codeExpired)
  })

  it('texts codes only to a patient with a phone, not twice within 30 seconds', async () => {
    const [noPhone] = await t.db
      .insert(patients)
      .values({
        practice_id: t.demo.practiceId,
        first_name: 'No',
        last_name: 'Phone',
        unsubscribe_id: `visits-nophone-${Date.now()}-abcdefgh`,
      })
      .returning({ id: patients.id })
    const refused = await post(
      `/api/patients/${noPhone?.id}/redemption-code`,
      { points: 100 },
      staffToken,
    )
    expect(refused.status).toBe(422)
    expect(await messageOf(refused)).toBe(VISIT_MESSAGES.noPhone)
    const patientId = await newPatient()
    expect(
      (await post(`/api/patients/${patientId}/redemption-code`, { points: 100 }, staffToken))
        .status,
    ).toBe(201)
    const tooSoon = await post(
      `/api/patients/${patientId}/redemption-code`,
      { points: 100 },
      staffToken,
    )
    expect(tooSoon.status).toBe(429)
    expect(await messageOf(tooSoon)).toMatch(/^Please wait \d+ seconds before sending/)
  })

  it("refuses archived items and patients, another patient's appointment and an empty promotion, each with its sentence", async () => {
    const patientId = await newPatient(100)
    const [archived] = await t.db
      .insert(procedures)
      .values({
        practice_id: t.demo.practiceId,
        name: 'Old Laser',
        price: 1000,
        points: 5,
        archived_at: new Date(),
      })
      .returning({ id: procedures.id })
    const item = await post('/api/visits/preview', {
      patient_id: patientId,
      items: [{ procedure_id: archived?.id, quantity: 1 }],
    })
    expect(item.status).toBe(422)
    expect(await messageOf(item)).toBe(VISIT_MESSAGES.itemArchived('Old Laser'))

    const someoneElse = await newPatient()
    const theirAppointment = await newAppointment(someoneElse)
    const wrongPatient = await recordVisit({
      patient_id: patientId,
      appointment_id: theirAppointment,
      items: [],
    })
    expect(wrongPatient.status).toBe(422)
    expect(await messageOf(wrongPatient)).toBe(VISIT_MESSAGES.appointmentOtherPatient)

    const [empty] = await t.db
      .insert(promotions)
      .values({ practice_id: t.demo.practiceId, title: 'Free consult', points: 0, points_cost: 0 })
      .returning({ id: promotions.id })
    const nothing = await postRedemption(patientId, {
      promotion_id: empty?.id,
      idempotencyKey: key(),
    })
    expect(nothing.status).toBe(422)
    expect(await messageOf(nothing)).toBe(VISIT_MESSAGES.promotionNothing)

    await t.db.update(patients).set({ archived_at: new Date() }).where(eq(patients.id, patientId))
    const gone = await recordVisit({ patient_id: patientId, items: [] })
    expect(gone.status).toBe(409)
    expect(await messageOf(gone)).toBe(VISIT_MESSAGES.patientArchived)
    const goneRedeem = await postRedemption(patientId, {
      points: 10,
      idempotencyKey: key(),
      override: { reason: 'x' },
    })
    expect(goneRedeem.status).toBe(409)
    expect(await messageOf(goneRedeem)).toBe(VISIT_MESSAGES.patientArchived)
    expect(await balanceMatchesEntries(patientId)).toBe(100)
  })

  it('sends a patient at most 5 codes an hour', async () => {
    const patientId = await newPatient()
    const start = Date.now()
    for (let i = 0; i < 5; i++) {
      const at = new Date(start + i * 31_000)
      t.setNow(at)
      const sent = await post(
        `/api/patients/${patientId}/redemption-code`,
        { points: 100 },
        await mintToken(t.demo.admin, { now: at }),
      )
      expect(sent.status).toBe(201)
    }
    const at = new Date(start + 5 * 31_000)
    t.setNow(at)
    const sixth = await post(
      `/api/patients/${patientId}/redemption-code`,
      { points: 100 },
      await mintToken(t.demo.admin, { now: at }),
    )
    expect(sixth.status).toBe(429)
    expect(await messageOf(sixth)).toBe(VISIT_MESSAGES.tooManyCodes)
  })

  it('refuses to spend more than the balance after the earn, with the balance in the sentence', async () => {
    const patientId = await newPatient(100)
    const response = await recordVisit({
      patient_id: patientId,
      items: [{ procedure_id: peelId, quantity: 1 }],
      redemption: { points: 141, override: { reason: 'gift card' } },
    })
    expect(response.status).toBe(409)
    expect(await messageOf(response)).toBe('Not enough points: the balance is 140.')
    // Nothing of the visit stays: not its earn either.
    expect(await balanceMatchesEntries(patientId)).toBe(100)
    expect(await visitsOf(patientId)).toEqual([])
  })

  it('lets a manager override the code with a reason, and refuses Staff with the sentence', async () => {
    const patientId = await newPatient(300)
    const staff = await recordVisit(
      {
        patient_id: patientId,
        items: [],
        redemption: { points: 100, override: { reason: 'phone lost' } },
      },
      staffToken,
    )
    expect(staff.status).toBe(403)
    expect(await messageOf(staff)).toBe(PERMISSION_REFUSALS['redeem.override'])
    const staffDirect = await postRedemption(
      patientId,
      { points: 100, idempotencyKey: key(), override: { reason: 'phone lost' } },
      staffToken,
    )
    expect(staffDirect.status).toBe(403)
    expect(await messageOf(staffDirect)).toBe(PERMISSION_REFUSALS['redeem.override'])

    const blank = await postRedemption(
      patientId,
      { points: 100, idempotencyKey: key(), override: { reason: '  ' } },
      manager.token,
    )
    expect(blank.status).toBe(400)
    expect(await messageOf(blank)).toMatch(/Please give a reason\./)

    const overridden = await postRedemption(
      patientId,
      { points: 100, idempotencyKey: key(), override: { reason: 'phone lost' } },
      manager.token,
    )
    expect(overridden.status).toBe(201)
    const { entry, balance } = v.parse(RedemptionAnswerSchema, await overridden.json())
    expect(entry).toMatchObject({ kind: 'redeem', points: -100, reason: 'phone lost' })
    expect(balance).toBe(200)
  })

  it('asks for the code for a free offer when the programme says always (0), not under a threshold above 0', async () => {
    const [free] = await t.db
      .insert(promotions)
      .values({
        practice_id: t.demo.practiceId,
        title: 'Free brow tint',
        points: 25,
        points_cost: 0,
      })
      .returning({ id: promotions.id })
    if (!free) throw new Error('no promotion')
    const claimed = async () => {
      const patientId = await newPatient(0)
      await claimPromotion(patientId, free.id)
      return patientId
    }
    const always = await claimed()
    const refused = await recordVisit({
      patient_id: always,
      items: [],
      redemption: { promotion_id: free.id },
    })
    expect(refused.status).toBe(403)
    expect(await messageOf(refused)).toBe("The patient's code is needed to redeem this offer.")
    const { authyId, code } = await codeFor(always, { promotion_id: free.id })
    const agreed = await recordVisit({
      patient_id: always,
      items: [],
      redemption: { promotion_id: free.id, verification: { authyId, code } },
    })
    expect(agreed.status).toBe(201)
    expect(v.parse(VisitAnswerSchema, await agreed.json()).balance).toBe(25)

    await setThreshold(100)
    const under = await claimed()
    const noCode = await recordVisit({
      patient_id: under,
      items: [],
      redemption: { promotion_id: free.id },
    })
    expect(noCode.status).toBe(201)
    expect(v.parse(VisitAnswerSchema, await noCode.json()).balance).toBe(25)
  })

  it('redeems a claimed promotion exactly once: its cost, then its bonus; undone, the claim comes back', async () => {
    const patientId = await newPatient(150)
    const notClaimed = await postRedemption(patientId, {
      promotion_id: promotionId,
      idempotencyKey: key(),
      override: { reason: 'at the desk' },
    })
    expect(notClaimed.status).toBe(409)
    expect(await messageOf(notClaimed)).toBe(VISIT_MESSAGES.promotionNotClaimed)
    await claimPromotion(patientId, promotionId)
    const { authyId, code } = await codeFor(patientId, { promotion_id: promotionId })
    const response = await recordVisit({
      patient_id: patientId,
      items: [],
      redemption: { promotion_id: promotionId, verification: { authyId, code } },
    })
    expect(response.status).toBe(201)
    const answer = v.parse(VisitAnswerSchema, await response.json())
    expect(answer.entries.map((e) => [e.kind, e.points])).toEqual([
      ['redeem', -100],
      ['bonus', 50],
    ])
    expect(answer.balance).toBe(100)
    expect(describeEntry(answer.entries[1] as never)).toBe(
      'Bonus of 50 points from a promotion at a visit',
    )
    const again = await postRedemption(patientId, {
      promotion_id: promotionId,
      idempotencyKey: key(),
      override: { reason: 'again' },
    })
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe(VISIT_MESSAGES.promotionRedeemed)

    const undo = await undoVisit(answer.visit.id)
    expect(undo.status).toBe(201)
    const [claim] = await t.db
      .select({ status: patientPromotions.status })
      .from(patientPromotions)
      .where(eq(patientPromotions.patient_id, patientId))
    expect(claim?.status).toBe('claimed')
    const direct = await postRedemption(patientId, {
      promotion_id: promotionId,
      idempotencyKey: key(),
      override: { reason: 'redeemed at the desk' },
    })
    expect(direct.status).toBe(201)
    const posted = v.parse(RedemptionAnswerSchema, await direct.json())
    expect(posted.entry).toMatchObject({ kind: 'redeem', points: -100, source_type: 'promotion' })
    expect(posted.bonus).toMatchObject({ kind: 'bonus', points: 50 })
    expect(posted.balance).toBe(100)
    expect(await balanceMatchesEntries(patientId)).toBe(100)
  })

  it('undoes a visit within 10 minutes (the redemption first), answers the same reversals again, and refuses after', async () => {
    const patientId = await newPatient(100)
    const appointmentId = await newAppointment(patientId)
    const visit = v.parse(
      VisitAnswerSchema,
      await (
        await recordVisit({
          patient_id: patientId,
          appointment_id: appointmentId,
          items: [{ procedure_id: peelId, quantity: 1 }],
          redemption: { points: 120, override: { reason: 'voucher' } },
        })
      ).json(),
    )
    expect(visit.balance).toBe(20)
    t.setNow(new Date(Date.now() + 9 * 60_000))
    const first = await undoVisit(
      visit.visit.id,
      await mintToken(t.demo.staff, { now: new Date(Date.now() + 9 * 60_000) }),
    )
    expect(first.status).toBe(201)
    const undone = v.parse(VisitUndoAnswerSchema, await first.json())
    expect(undone.entries.map((e) => [e.kind, e.points, e.reverses_id])).toEqual([
      ['reverse', 120, visit.entries[1]?.id],
      ['reverse', -40, visit.entries[0]?.id],
    ])
    expect(undone.balance).toBe(100)
    expect(describeEntry(undone.entries[0] as never)).toMatch(/^Reversed entry #\d+ \(\+120\)/)
    const second = await undoVisit(visit.visit.id)
    expect(v.parse(VisitUndoAnswerSchema, await second.json())).toEqual(undone)
    expect(await appointmentStatus(appointmentId)).toBe('scheduled')
    const read = v.parse(
      VisitAnswerSchema,
      await (await t.request(`/api/visits/${visit.visit.id}`, { token: staffToken })).json(),
    )
    expect(read.visit.undone_at).not.toBeNull()
    // The appointment can be completed again.
    t.setNow(undefined)
    const redo = await recordVisit({
      patient_id: patientId,
      appointment_id: appointmentId,
      items: [{ procedure_id: peelId, quantity: 1 }],
    })
    expect(redo.status).toBe(201)
    const redone = v.parse(VisitAnswerSchema, await redo.json())

    const late = new Date(Date.now() + 11 * 60_000)
    t.setNow(late)
    const refused = await undoVisit(redone.visit.id, await mintToken(t.demo.admin, { now: late }))
    expect(refused.status).toBe(409)
    expect(await messageOf(refused)).toBe(VISIT_MESSAGES.undoWindowPassed)
    expect(await balanceMatchesEntries(patientId)).toBe(140)
  })

  it('lets 20 concurrent redemptions that exceed the balance succeed only as far as it goes', async () => {
    const patientId = await newPatient(1000)
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        postRedemption(patientId, {
          points: 150,
          idempotencyKey: key(),
          override: { reason: 'reward' },
        }),
      ),
    )
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(6)
    expect(statuses.filter((s) => s === 409)).toHaveLength(14)
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(await messageOf(response)).toMatch(/^Not enough points: the balance is (100|\d+)\.$/)
    }
    expect(await balanceMatchesEntries(patientId)).toBe(100)
  })

  it('answers a replayed redemption with the same entry and writes nothing new', async () => {
    const patientId = await newPatient(300)
    const body = { points: 100, idempotencyKey: key(), override: { reason: 'reward' } }
    const [a, b] = await Promise.all([
      postRedemption(patientId, body),
      postRedemption(patientId, body),
    ])
    const first = v.parse(LedgerPostingSchema, await a.json())
    const second = v.parse(LedgerPostingSchema, await b.json())
    const third = v.parse(LedgerPostingSchema, await (await postRedemption(patientId, body)).json())
    expect(second.entry.id).toBe(first.entry.id)
    expect(third.entry.id).toBe(first.entry.id)
    expect(await balanceMatchesEntries(patientId)).toBe(200)
  })

  it("answers another practice's patients, visits, items, appointments and promotions with 404", async () => {
    const patientId = await newPatient(100)
    const cases: [string, unknown][] = [
      ['/api/visits/preview', { patient_id: other.patientId, items: [] }],
      ['/api/visits', { patient_id: other.patientId, items: [], idempotencyKey: key() }],
      [
        '/api/visits/preview',
        { patient_id: patientId, items: [{ procedure_id: other.procedureId, quantity: 1 }] },
      ],
      [
        '/api/visits/preview',
        { patient_id: patientId, items: [{ product_id: other.productId, quantity: 1 }] },
      ],
      [
        '/api/visits/preview',
        { patient_id: patientId, appointment_id: other.appointmentId, items: [] },
      ],
      [
        `/api/patients/${patientId}/redemptions`,
        { promotion_id: other.promotionId, idempotencyKey: key(), override: { reason: 'x' } },
      ],
      [
        `/api/patients/${other.patientId}/redemptions`,
        { points: 1, idempotencyKey: key(), override: { reason: 'x' } },
      ],
      [`/api/patients/${other.patientId}/redemption-code`, { points: 100 }],
    ]
    for (const [path, body] of cases) {
      const response = await post(path, body)
      expect(response.status, path).toBe(404)
    }
    const theirs = v.parse(
      VisitAnswerSchema,
      await (
        await post(
          '/api/visits',
          {
            patient_id: other.patientId,
            items: [{ procedure_id: other.procedureId, quantity: 1 }],
            idempotencyKey: key(),
          },
          other.token,
        )
      ).json(),
    )
    expect(
      (await t.request(`/api/visits/${theirs.visit.id}`, { token: t.demo.adminToken })).status,
    ).toBe(404)
    expect((await undoVisit(theirs.visit.id)).status).toBe(404)
  })

  it('keeps balance = sum of entries and never below 0 through any mix of visits, redemptions, undos and reversals', async () => {
    const step = fc.oneof(
      fc.record({
        op: fc.constant('visit' as const),
        peel: fc.integer({ min: 0, max: 3 }),
        redeem: fc.integer({ min: 0, max: 200 }),
      }),
      fc.record({ op: fc.constant('redeem' as const), points: fc.integer({ min: 1, max: 200 }) }),
      fc.record({ op: fc.constant('undo' as const) }),
      fc.record({ op: fc.constant('reverse' as const), pick: fc.nat() }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const patientId = await newPatient(100)
        const visitIds: number[] = []
        for (const s of steps) {
          let response: Response
          if (s.op === 'visit') {
            response = await recordVisit({
              patient_id: patientId,
              items: s.peel > 0 ? [{ procedure_id: peelId, quantity: s.peel }] : [],
              ...(s.redeem > 0
                ? { redemption: { points: s.redeem, override: { reason: 'mix' } } }
                : {}),
            })
            if (response.status === 201) {
              visitIds.push(v.parse(VisitAnswerSchema, await response.json()).visit.id)
            }
          } else if (s.op === 'redeem') {
            response = await postRedemption(patientId, {
              points: s.points,
              idempotencyKey: key(),
              override: { reason: 'mix' },
            })
          } else if (s.op === 'undo') {
            const last = visitIds.at(-1)
            if (last === undefined) continue
            response = await undoVisit(last)
          } else {
            const entries = await t.db
              .select({ id: ledgerEntries.id })
              .from(ledgerEntries)
              .where(eq(ledgerEntries.patient_id, patientId))
            const target = entries[s.pick % entries.length]
            if (!target) continue
            response = await post(`/api/ledger/${target.id}/reverse`, { reason: 'mix' })
          }
          expect([201, 409]).toContain(response.status)
          await balanceMatchesEntries(patientId)
        }
      }),
      { numRuns: 12 },
    )
  })
})
