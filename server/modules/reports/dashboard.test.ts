import { and, eq, sql } from 'drizzle-orm'
import fc from 'fast-check'
import Papa from 'papaparse'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import {
  LIABILITY_LABELS,
  LIABILITY_LINES,
  type LiabilityReport,
  liabilityClosing,
  REPORT_MESSAGES,
  type ReportSummary,
  type WorklistPage,
} from '#domain/reports.ts'
import { appointments, patientPromotions, patients, promotions } from '#server/db/schema.ts'
import { DomainError } from '#server/lib/domain-error.ts'
import { createLedger } from '#server/modules/ledger/service.ts'
import {
  createMember,
  createPracticeFixture,
  createTestApp,
  mintToken,
  type PracticeFixture,
  type TestApp,
  testBackends,
} from '#server/testing/test-app.ts'
import { LIABILITY_COLUMNS } from './routes.ts'

const NOW = new Date('2027-03-15T12:00:00.000Z')
const at = (iso: string) => new Date(iso)

const messageOf = async (response: Response) =>
  ((await response.json()) as { error: { message: string } }).error.message

describe.each(testBackends())("the dashboard's reports on $name", (backend) => {
  let t: TestApp
  let p: PracticeFixture
  let staffToken: string
  let managerToken: string
  const ids: Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f', number> = {
    a: 0,
    b: 0,
    c: 0,
    d: 0,
    e: 0,
    f: 0,
  }
  let offerId = 0
  let openAppointmentId = 0

  const get = async <T>(path: string, token = p.token): Promise<T> => {
    const response = await t.request(path, { token })
    expect(response.status, path).toBe(200)
    return (await response.json()) as T
  }

  /**
   * A practice built by hand, so every figure is known: six patients (one archived), a year of
   * entries of every kind on known days, an offer ending soon with a claim and a redemption, and
   * appointments today and yesterday. The clock is 15 March 2027, noon UTC: this month so far is
   * 1–15 March, the previous period 14–28 February.
   */
  beforeAll(async () => {
    t = await createTestApp(backend)
    p = await createPracticeFixture(t.db, {
      name: 'Report Practice',
      startsAt: at('2027-01-05T10:00:00Z'),
    })
    // Sessions signed on the test's clock.
    p.token = await mintToken(p.admin, { now: NOW })
    staffToken = await mintToken((await createMember(t.db, p.practiceId, 'Staff')).user, {
      now: NOW,
    })
    managerToken = await mintToken((await createMember(t.db, p.practiceId, 'Manager')).user, {
      now: NOW,
    })
    const make = async (
      name: string,
      created: string,
      more: Partial<typeof patients.$inferInsert> = {},
    ) => {
      const [row] = await t.db
        .insert(patients)
        .values({
          practice_id: p.practiceId,
          first_name: name,
          last_name: 'Report',
          unsubscribe_id: `report-${name}-${Date.now()}-abcdefgh`,
          created_at: at(created),
          ...more,
        })
        .returning({ id: patients.id })
      if (!row) throw new Error('no patient')
      return row.id
    }
    ids.a = await make('Ava', '2026-02-01T10:00:00Z', { last_visit_at: at('2026-11-01T10:00:00Z') })
    ids.b = await make('Bea', '2027-02-20T10:00:00Z')
    ids.c = await make('Cal', '2027-03-05T10:00:00Z')
    ids.d = await make('Dex', '2027-03-10T10:00:00Z', { archived_at: at('2027-03-12T10:00:00Z') })
    ids.e = await make('Eli', '2026-02-01T10:00:00Z')
    ids.f = await make('Fay', '2026-03-01T10:00:00Z')

    let clock = NOW
    const ledger = createLedger({ db: t.db, now: () => clock })
    const base = { practiceId: p.practiceId, userId: p.admin.id }
    let key = 0
    const k = () => `report-test-${key++}`
    const on = (iso: string) => {
      clock = at(iso)
    }
    on('2026-03-01T10:00:00Z')
    await ledger.credit({
      ...base,
      patientId: ids.e,
      kind: 'earn',
      points: 60,
      sourceType: 'visit',
      idempotencyKey: k(),
    })
    on('2026-03-20T10:00:00Z')
    await ledger.credit({
      ...base,
      patientId: ids.f,
      kind: 'earn',
      points: 70,
      sourceType: 'visit',
      idempotencyKey: k(),
    })
    on('2027-01-15T10:00:00Z')
    await ledger.credit({
      ...base,
      patientId: ids.a,
      kind: 'earn',
      points: 500,
      sourceType: 'visit',
      idempotencyKey: k(),
    })
    on('2027-02-20T10:00:00Z')
    await ledger.credit({
      ...base,
      patientId: ids.a,
      kind: 'earn',
      points: 200,
      sourceType: 'visit',
      idempotencyKey: k(),
    })
    on('2027-02-25T10:00:00Z')
    await ledger.redeem({
      ...base,
      patientId: ids.a,
      points: 100,
      sourceType: 'manual',
      idempotencyKey: k(),
    })
    on('2027-03-02T10:00:00Z')
    await ledger.credit({
      ...base,
      patientId: ids.b,
      kind: 'bonus',
      points: 50,
      sourceType: 'promotion',
      idempotencyKey: k(),
    })
    on('2027-03-03T10:00:00Z')
    await ledger.redeem({
      ...base,
      patientId: ids.a,
      points: 300,
      sourceType: 'manual',
      idempotencyKey: k(),
    })
    on('2027-03-06T10:00:00Z')
    await ledger.adjust({
      ...base,
      patientId: ids.c,
      points: 40,
      reason: 'Goodwill',
      idempotencyKey: k(),
    })
    on('2027-03-07T10:00:00Z')
    await ledger.adjust({
      ...base,
      patientId: ids.c,
      points: -10,
      reason: 'Fix',
      idempotencyKey: k(),
    })
    on('2027-03-08T10:00:00Z')
    const earned = await ledger.credit({
      ...base,
      patientId: ids.b,
      kind: 'earn',
      points: 80,
      sourceType: 'visit',
      idempotencyKey: k(),
    })
    on('2027-03-09T10:00:00Z')
    await ledger.reverse({
      ...base,
      entryId: earned.entry.id,
      reason: 'Wrong patient',
      idempotencyKey: k(),
    })
    on('2027-03-10T10:00:00Z')
    // Eli's lot of 1 March 2026 lapsed on 1 March 2027: the daily job takes it now.
    expect((await ledger.expireDue(p.practiceId)).map((e) => e.points)).toEqual([-60])

    const [offer] = await t.db
      .insert(promotions)
      .values({
        practice_id: p.practiceId,
        title: 'March Glow',
        points: 25,
        published_at: at('2027-02-15T00:00:00Z'),
        starts_at: at('2027-03-01T00:00:00Z'),
        ends_at: at('2027-03-20T00:00:00Z'),
      })
      .returning({ id: promotions.id })
    offerId = offer?.id ?? 0
    await t.db.insert(patientPromotions).values([
      {
        practice_id: p.practiceId,
        patient_id: ids.a,
        promotion_id: offerId,
        status: 'claimed',
        claimed_at: at('2027-03-02T10:00:00Z'),
      },
      {
        practice_id: p.practiceId,
        patient_id: ids.b,
        promotion_id: offerId,
        status: 'redeemed',
        claimed_at: at('2027-02-20T10:00:00Z'),
        redeemed_at: at('2027-03-04T10:00:00Z'),
      },
    ])
    const booked = await t.db
      .insert(appointments)
      .values([
        {
          practice_id: p.practiceId,
          patient_id: ids.b,
          starts_at: at('2027-03-15T10:00:00Z'),
          status: 'scheduled',
          procedure_id: p.procedureId,
        },
        {
          practice_id: p.practiceId,
          patient_id: ids.c,
          starts_at: at('2027-03-15T11:00:00Z'),
          status: 'completed',
        },
        {
          practice_id: p.practiceId,
          patient_id: ids.a,
          starts_at: at('2027-03-15T13:00:00Z'),
          status: 'cancelled',
        },
        {
          practice_id: p.practiceId,
          patient_id: ids.a,
          starts_at: at('2027-03-14T13:00:00Z'),
          status: 'completed',
        },
      ])
      .returning({ id: appointments.id })
    openAppointmentId = booked[0]?.id ?? 0
    t.setNow(NOW)
  })
  afterAll(() => t?.close())

  it('counts the tiles of this month against the 15 days before, in points and, for an Admin, dollars', async () => {
    const summary = await get<ReportSummary>('/api/reports/summary')
    expect(summary.period).toEqual({ from: '2027-03-01', to: '2027-03-15' })
    expect(summary.previous_period).toEqual({ from: '2027-02-14', to: '2027-02-28' })
    expect(summary.today).toBe('2027-03-15')
    expect(summary.point_value_cents).toBe(10)
    expect(summary.tiles).toEqual({
      // Peter (the fixture's), Ava, Bea, Cal, Eli, Fay; Dex joined and was archived this month.
      patients: { current: 6, previous: 5 },
      new_patients: { current: 2, previous: 1 },
      imported_patients: { current: 0, previous: 0 },
      // Before March: Eli 60, Fay 70, Ava 500 + 200 − 100. Then +50 +80 −300 +40 −10 −80 −60.
      points_outstanding: { current: 450, previous: 730 },
      liability_cents: { current: 4500, previous: 7300 },
      // Net of reversals: Bea's 80 of 8 March were reversed on the 9th, so March
      // earned her bonus of 50 only (before: 130, the reversed visit counted).
      points_earned: { current: 50, previous: 200 },
      points_redeemed: { current: 300, previous: 100 },
      points_expired: { current: 60, previous: 0 },
      points_adjusted: { current: 30, previous: 0 },
      offers_claimed: { current: 1, previous: 1 },
      offers_redeemed: { current: 1, previous: 0 },
      appointments_booked: { current: 2, previous: 1 },
      appointments_completed: { current: 1, previous: 1 },
    })
    const [balances] = await t.db
      .select({ sum: sql<number>`sum(${patients.points})::int` })
      .from(patients)
      .where(eq(patients.practice_id, p.practiceId))
    expect(Number(balances?.sum)).toBe(summary.tiles.points_outstanding.current)
    // The movements reconcile with outstanding: 730 + 50 − 300 − 60 + 30 = 450.
    const { tiles } = summary
    expect(
      tiles.points_outstanding.previous +
        tiles.points_earned.current -
        tiles.points_redeemed.current -
        tiles.points_expired.current +
        tiles.points_adjusted.current,
    ).toBe(tiles.points_outstanding.current)
  })

  it('gives the 12 months of the charts and the funnel of each live offer', async () => {
    const summary = await get<ReportSummary>('/api/reports/summary')
    expect(summary.months.map((m) => m.month)).toEqual([
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
      '2026-12',
      '2027-01',
      '2027-02',
      '2027-03',
    ])
    const byMonth = Object.fromEntries(summary.months.map((m) => [m.month, m]))
    expect(byMonth['2027-01']).toEqual({
      month: '2027-01',
      earned: 500,
      redeemed: 0,
      expired: 0,
      new_patients: 0,
    })
    expect(byMonth['2027-02']).toEqual({
      month: '2027-02',
      earned: 200,
      redeemed: 100,
      expired: 0,
      new_patients: 1,
    })
    expect(byMonth['2027-03']).toEqual({
      month: '2027-03',
      earned: 50,
      redeemed: 300,
      expired: 60,
      new_patients: 2,
    })
    // March Glow is published and runs to 20 March; the fixture's other offer was never
    // published (a draft), so it is not live.
    expect(summary.offers).toEqual([
      {
        id: offerId,
        title: 'March Glow',
        starts_at: '2027-03-01T00:00:00.000Z',
        ends_at: '2027-03-20T00:00:00.000Z',
        sent: 0,
        claimed: 2,
        redeemed: 1,
        expired: 0,
      },
    ])
  })

  it('shows Staff the counts without the money fields, and refuses them the liability report', async () => {
    const summary = await get<ReportSummary>('/api/reports/summary', staffToken)
    expect(summary.tiles.points_outstanding.current).toBe(450)
    expect('liability_cents' in summary.tiles).toBe(false)
    expect('point_value_cents' in summary).toBe(false)
    for (const path of ['/api/reports/liability', '/api/reports/liability.csv']) {
      const refused = await t.request(path, { token: staffToken })
      expect(refused.status).toBe(403)
      expect(await messageOf(refused)).toBe(PERMISSION_REFUSALS['reports.money'])
    }
    const worklist = await get<WorklistPage>('/api/reports/worklist?list=lapsing', staffToken)
    expect(worklist.total).toBe(2)
  })

  it('adds up the liability report exactly, in points and cents, and its closing is the sum of the balances', async () => {
    const report = await get<LiabilityReport>(
      '/api/reports/liability?from=2027-03-01&to=2027-03-15',
      managerToken,
    )
    expect(report).toEqual({
      period: { from: '2027-03-01', to: '2027-03-15' },
      point_value_cents: 10,
      opening_points: 730,
      earned: 80,
      bonus: 50,
      adjusted: 30,
      redeemed: -300,
      expired: -60,
      reversed: -80,
      closing_points: 450,
      opening_cents: 7300,
      earned_cents: 800,
      bonus_cents: 500,
      adjusted_cents: 300,
      redeemed_cents: -3000,
      expired_cents: -600,
      reversed_cents: -800,
      closing_cents: 4500,
    })
    expect(liabilityClosing(report)).toBe(report.closing_points)
    // February alone: its closing is March's opening.
    const february = await get<LiabilityReport>(
      '/api/reports/liability?from=2027-02-01&to=2027-02-28',
    )
    expect(february).toMatchObject({
      opening_points: 630,
      earned: 200,
      redeemed: -100,
      closing_points: 730,
    })
  })

  it('exports the liability report as CSV lines in points and dollars, and audits it', async () => {
    const response = await t.request('/api/reports/liability.csv?from=2027-03-01&to=2027-03-15', {
      token: p.token,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Disposition')).toBe(
      'attachment; filename="liability-2027-03-01-to-2027-03-15.csv"',
    )
    const { data, meta } = Papa.parse<Record<string, string>>((await response.text()).trimEnd(), {
      header: true,
    })
    expect(meta.fields).toEqual([...LIABILITY_COLUMNS])
    expect(data.map((row) => [row.line, row.points, row.dollars])).toEqual([
      [LIABILITY_LABELS.opening_points, '730', '73'],
      [LIABILITY_LABELS.earned, '80', '8'],
      [LIABILITY_LABELS.bonus, '50', '5'],
      [LIABILITY_LABELS.adjusted, '30', '3'],
      [LIABILITY_LABELS.redeemed, '-300', '-30'],
      [LIABILITY_LABELS.expired, '-60', '-6'],
      [LIABILITY_LABELS.reversed, '-80', '-8'],
      [LIABILITY_LABELS.closing_points, '450', '45'],
    ])
    // One sign convention: each column sums, from the opening line through every
    // movement, to the closing line, and the closing line is the sum of the patients' balances.
    // (Before, Redeemed was written +300 beside Reversed −80, and the column did not sum.)
    const lines = data.map((row) => ({ points: Number(row.points), dollars: Number(row.dollars) }))
    const closing = lines.at(-1)
    const sum = (key: 'points' | 'dollars') =>
      lines.slice(0, -1).reduce((total, line) => total + line[key], 0)
    expect(sum('points')).toBe(closing?.points)
    expect(Math.round(sum('dollars') * 100)).toBe(Math.round((closing?.dollars ?? 0) * 100))
    const [balances] = await t.db
      .select({ sum: sql<number>`sum(${patients.points})::int` })
      .from(patients)
      .where(eq(patients.practice_id, p.practiceId))
    expect(closing?.points).toBe(Number(balances?.sum))
    const events = await t.db.execute(
      sql`select details from audit_events where practice_id = ${p.practiceId} and action = 'report.exported'`,
    )
    expect(
      (events as unknown as { rows: { details: unknown }[] }).rows.map((r) => r.details),
    ).toEqual([{ report: 'liability' }])
  })

  it('lists each part of the worklist, paged, with what each row links to', async () => {
    const expiring = await get<WorklistPage>('/api/reports/worklist?list=expiring')
    expect(expiring).toEqual({
      list: 'expiring',
      total: 1,
      page: 1,
      pageSize: 10,
      data: [
        {
          patient_id: ids.f,
          first_name: 'Fay',
          last_name: 'Report',
          points: 70,
          at: '2027-03-20T10:00:00.000Z',
          label: null,
          promotion_id: null,
          appointment_id: null,
        },
      ],
    })
    const lapsing = await get<WorklistPage>('/api/reports/worklist?list=lapsing&pageSize=1')
    expect(lapsing.total).toBe(2)
    expect(lapsing.data.map((r) => [r.first_name, r.points, r.at])).toEqual([['Fay', 70, null]])
    const second = await get<WorklistPage>('/api/reports/worklist?list=lapsing&pageSize=1&page=2')
    expect(second.data.map((r) => [r.first_name, r.points, r.at])).toEqual([
      ['Ava', 300, '2026-11-01T10:00:00.000Z'],
    ])
    const beyond = await get<WorklistPage>('/api/reports/worklist?list=lapsing&pageSize=1&page=9')
    expect(beyond).toMatchObject({ data: [], total: 2, page: 9 })
    const ending = await get<WorklistPage>('/api/reports/worklist?list=offers-ending')
    expect(ending.data).toEqual([
      {
        patient_id: ids.a,
        first_name: 'Ava',
        last_name: 'Report',
        points: null,
        at: '2027-03-20T00:00:00.000Z',
        label: 'March Glow',
        promotion_id: offerId,
        appointment_id: null,
      },
    ])
    const today = await get<WorklistPage>('/api/reports/worklist?list=appointments')
    expect(today.data).toEqual([
      {
        patient_id: ids.b,
        first_name: 'Bea',
        last_name: 'Report',
        points: null,
        at: '2027-03-15T10:00:00.000Z',
        label: 'Other Peel',
        promotion_id: null,
        appointment_id: openAppointmentId,
      },
    ])
  })

  it('refuses a malformed or reversed period and an unknown list with the reason', async () => {
    const cases: [string, string][] = [
      ['/api/reports/summary?from=2027-02-30', `from: ${REPORT_MESSAGES.from}`],
      ['/api/reports/liability?to=15/03/2027', `to: ${REPORT_MESSAGES.to}`],
      ['/api/reports/liability?from=2027-03-10&to=2027-03-01', REPORT_MESSAGES.order],
      ['/api/reports/summary?from=1990-01-01&to=2027-03-01', REPORT_MESSAGES.tooLong],
      ['/api/reports/worklist?list=everything', `list: ${REPORT_MESSAGES.list}`],
      ['/api/reports/worklist?list=lapsing&page=0', `page: ${REPORT_MESSAGES.page}`],
      ['/api/reports/worklist?list=lapsing&pageSize=500', `pageSize: ${REPORT_MESSAGES.pageSize}`],
    ]
    for (const [path, message] of cases) {
      const response = await t.request(path, { token: p.token })
      expect(response.status, path).toBe(400)
      expect(await messageOf(response), path).toBe(message)
    }
  })
})

describe.each(testBackends())('numbers that reconcile on $name', (backend) => {
  let t: TestApp
  let p: PracticeFixture

  beforeAll(async () => {
    t = await createTestApp(backend)
    p = await createPracticeFixture(t.db, { name: 'Undo Practice' })
  })
  afterAll(() => t?.close())

  const summary = async () => {
    const response = await t.request('/api/reports/summary', { token: p.token })
    expect(response.status).toBe(200)
    return ((await response.json()) as ReportSummary).tiles
  }
  const csv = async (path: string) => {
    const response = await t.request(path, { token: p.token })
    expect(response.status, path).toBe(200)
    return Papa.parse<Record<string, string>>((await response.text()).trimEnd(), { header: true })
      .data
  }

  it("drops a visit from the dashboard's earned once it is undone, and every CSV still sums to the balances", async () => {
    const before = await summary()
    const visit = await t.request('/api/visits', {
      method: 'POST',
      token: p.token,
      json: {
        patient_id: p.patientId,
        items: [{ procedure_id: p.procedureId, quantity: 3 }],
        idempotencyKey: 'undo-dashboard-visit',
      },
    })
    expect(visit.status).toBe(201)
    const { visit: recorded } = (await visit.json()) as { visit: { id: number } }
    const earned = await summary()
    expect(earned.points_earned.current).toBe(before.points_earned.current + 30)
    expect(earned.points_outstanding.current).toBe(before.points_outstanding.current + 30)

    const undo = await t.request(`/api/visits/${recorded.id}/undo`, {
      method: 'POST',
      token: p.token,
      json: {},
    })
    expect(undo.status).toBe(201)
    const after = await summary()
    // Once, the undone visit stayed in earned (30) while outstanding went back to 0.
    expect(after.points_earned.current).toBe(before.points_earned.current)
    expect(after.points_outstanding.current).toBe(before.points_outstanding.current)
    expect(
      after.points_outstanding.previous +
        after.points_earned.current -
        after.points_redeemed.current -
        after.points_expired.current +
        after.points_adjusted.current,
    ).toBe(after.points_outstanding.current)

    // The ledger CSV: signed entries (the visit +30, its reversal −30) that sum to the balances.
    const entries = await csv('/api/reports/ledger.csv')
    expect(entries.map((row) => [row.kind, row.points])).toEqual([
      ['earn', '30'],
      ['reverse', '-30'],
    ])
    const ledgerSum = entries.reduce((total, row) => total + Number(row.points), 0)
    const people = await csv('/api/reports/patients.csv')
    const patientSum = people.reduce((total, row) => total + Number(row.points), 0)
    expect(ledgerSum).toBe(after.points_outstanding.current)
    expect(patientSum).toBe(after.points_outstanding.current)
    // The liability CSV of the same period sums from its opening to its closing line.
    const liability = await csv('/api/reports/liability.csv')
    const points = liability.map((row) => Number(row.points))
    expect(points.slice(0, -1).reduce((a, b) => a + b, 0)).toBe(points.at(-1))
    expect(points.at(-1)).toBe(after.points_outstanding.current)
  })

  it('counts imported patients by the day they joined, and an import without that day apart from new', async () => {
    const before = await summary()
    const today = new Date().toISOString().slice(0, 10)
    const row = (n: number, joined_on: string | null) => ({
      row: n + 2,
      first_name: 'Imma',
      last_name: `Joined${n}`,
      email: `imma.${n}.${Date.now()}@joined.example`,
      joined_on,
    })
    const send = async (fileId: string, rows: unknown[]) => {
      const response = await t.request('/api/patients/import', {
        method: 'POST',
        token: p.token,
        json: { file_id: fileId, rows },
      })
      expect(response.status).toBe(201)
    }
    // A file of 3 without a "joined on" column, and one of 2 with it: joined in 2019 and today.
    await send('1'.repeat(64), [row(0, null), row(1, null), row(2, null)])
    await send('2'.repeat(64), [row(3, '2019-06-01'), row(4, today)])
    const after = await summary()
    // Once, all five read as "5 new this period".
    expect(after.new_patients.current).toBe(before.new_patients.current + 1)
    expect(after.imported_patients.current).toBe(before.imported_patients.current + 3)
    expect(after.patients.current).toBe(before.patients.current + 5)
  })
})

type Step =
  | { op: 'earn' | 'bonus'; patient: number; points: number; days: number }
  | { op: 'redeem' | 'adjust'; patient: number; points: number; days: number }
  | { op: 'reverse'; pick: number; days: number }
  | { op: 'expire'; days: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constantFrom('earn' as const, 'bonus' as const),
    patient: fc.nat(2),
    points: fc.integer({ min: 1, max: 500 }),
    days: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({
    op: fc.constantFrom('redeem' as const, 'adjust' as const),
    patient: fc.nat(2),
    points: fc.integer({ min: 1, max: 300 }),
    days: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({
    op: fc.constant('reverse' as const),
    pick: fc.nat(),
    days: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({ op: fc.constant('expire' as const), days: fc.integer({ min: 30, max: 200 }) }),
)

describe.each(testBackends())(
  'the liability identity under random histories on $name',
  (backend) => {
    let t: TestApp

    beforeAll(async () => {
      t = await createTestApp(backend)
    })
    afterAll(() => t?.close())

    it('adds up every period of any sequence of visits, redemptions, adjustments, reversals and expiries', async () => {
      let run = 0
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 1, maxLength: 25 }),
          fc.integer({ min: 0, max: 400 }),
          fc.integer({ min: 0, max: 400 }),
          async (steps, cut1, cut2) => {
            run += 1
            const p = await createPracticeFixture(t.db, { name: `Random ${run}` })
            const patientIds = [p.patientId]
            for (const name of ['Rae', 'Sol']) {
              const [row] = await t.db
                .insert(patients)
                .values({
                  practice_id: p.practiceId,
                  first_name: name,
                  last_name: 'Random',
                  unsubscribe_id: `random-${run}-${name}-${Date.now()}-abcdefgh`,
                })
                .returning({ id: patients.id })
              if (row) patientIds.push(row.id)
            }
            const start = Date.parse('2025-01-01T09:00:00Z')
            let clock = new Date(start)
            const ledger = createLedger({ db: t.db, now: () => clock })
            const written: number[] = []
            const base = { practiceId: p.practiceId, userId: p.admin.id }
            for (const [i, s] of steps.entries()) {
              clock = new Date(clock.getTime() + s.days * 86_400_000 + 60_000)
              const key = `random-${run}-${i}`
              try {
                if (s.op === 'earn' || s.op === 'bonus') {
                  const r = await ledger.credit({
                    ...base,
                    patientId: patientIds[s.patient] ?? 0,
                    kind: s.op,
                    points: s.points,
                    sourceType: 'visit',
                    idempotencyKey: key,
                  })
                  written.push(r.entry.id)
                } else if (s.op === 'redeem') {
                  const r = await ledger.redeem({
                    ...base,
                    patientId: patientIds[s.patient] ?? 0,
                    points: s.points,
                    sourceType: 'manual',
                    idempotencyKey: key,
                  })
                  written.push(r.entry.id)
                } else if (s.op === 'adjust') {
                  const sign = i % 2 === 0 ? 1 : -1
                  const r = await ledger.adjust({
                    ...base,
                    patientId: patientIds[s.patient] ?? 0,
                    points: sign * s.points,
                    reason: 'Random',
                    idempotencyKey: key,
                  })
                  written.push(r.entry.id)
                } else if (s.op === 'reverse') {
                  const target = written[s.pick % Math.max(written.length, 1)]
                  if (target)
                    await ledger.reverse({
                      ...base,
                      entryId: target,
                      reason: 'Random',
                      idempotencyKey: key,
                    })
                } else {
                  await ledger.expireDue(p.practiceId)
                }
              } catch (error) {
                // The ledger's own refusals (no overspend, spent lots, reversed twice) are part of
                // the history; anything else is a failure.
                if (!(error instanceof DomainError && error.kind === 'conflict')) throw error
              }
            }
            const day = (offset: number) =>
              new Date(start + offset * 86_400_000).toISOString().slice(0, 10)
            const [from, to] = [day(Math.min(cut1, cut2)), day(Math.max(cut1, cut2))]
            const direct = (
              (await t.db.execute(sql`select
              coalesce(sum(points) filter (where created_at < ${from}::date), 0)::int as opening,
              coalesce(sum(points) filter (where kind = 'earn' and created_at >= ${from}::date), 0)::int as earned,
              coalesce(sum(points) filter (where kind = 'bonus' and created_at >= ${from}::date), 0)::int as bonus,
              coalesce(sum(points) filter (where kind = 'adjust' and created_at >= ${from}::date), 0)::int as adjusted,
              coalesce(sum(points) filter (where kind = 'redeem' and created_at >= ${from}::date), 0)::int as redeemed,
              coalesce(sum(points) filter (where kind = 'expire' and created_at >= ${from}::date), 0)::int as expired,
              coalesce(sum(points) filter (where kind = 'reverse' and created_at >= ${from}::date), 0)::int as reversed,
              coalesce(sum(points), 0)::int as closing
              from ledger_entries where practice_id = ${p.practiceId}
                and created_at < (${to}::date + 1)`)) as unknown as {
                rows: Record<string, unknown>[]
              }
            ).rows[0] as Record<string, unknown>
            const response = await t.request(`/api/reports/liability?from=${from}&to=${to}`, {
              token: p.token,
            })
            const report = (await response.json()) as LiabilityReport
            expect({
              opening: report.opening_points,
              earned: report.earned,
              bonus: report.bonus,
              adjusted: report.adjusted,
              redeemed: report.redeemed,
              expired: report.expired,
              reversed: report.reversed,
              closing: report.closing_points,
            }).toEqual(Object.fromEntries(Object.entries(direct).map(([k, v]) => [k, Number(v)])))
            expect(liabilityClosing(report)).toBe(report.closing_points)
            // The dashboard's figures of the same period are net of reversals and reconcile:
            // outstanding at the start + earned − redeemed − expired + adjusted = at the end.
            const netDirect = (
              (await t.db.execute(sql`select
              coalesce(sum(e.points) filter (where coalesce(r.kind, e.kind) in ('earn', 'bonus')), 0)::int as earned,
              coalesce(-sum(e.points) filter (where coalesce(r.kind, e.kind) = 'redeem'), 0)::int as redeemed,
              coalesce(-sum(e.points) filter (where coalesce(r.kind, e.kind) = 'expire'), 0)::int as expired,
              coalesce(sum(e.points) filter (where coalesce(r.kind, e.kind) = 'adjust'), 0)::int as adjusted
              from ledger_entries e left join ledger_entries r on r.id = e.reverses_id
              where e.practice_id = ${p.practiceId} and e.created_at >= ${from}::date
                and e.created_at < (${to}::date + 1)`)) as unknown as {
                rows: Record<string, unknown>[]
              }
            ).rows[0] as Record<string, unknown>
            const summaryResponse = await t.request(`/api/reports/summary?from=${from}&to=${to}`, {
              token: p.token,
            })
            const { tiles } = (await summaryResponse.json()) as ReportSummary
            expect({
              earned: tiles.points_earned.current,
              redeemed: tiles.points_redeemed.current,
              expired: tiles.points_expired.current,
              adjusted: tiles.points_adjusted.current,
            }).toEqual(
              Object.fromEntries(Object.entries(netDirect).map(([k, v]) => [k, Number(v)])),
            )
            expect(
              tiles.points_outstanding.previous +
                tiles.points_earned.current -
                tiles.points_redeemed.current -
                tiles.points_expired.current +
                tiles.points_adjusted.current,
            ).toBe(tiles.points_outstanding.current)
            for (const line of LIABILITY_LINES) {
              const cents =
                line === 'opening_points'
                  ? 'opening_cents'
                  : line === 'closing_points'
                    ? 'closing_cents'
                    : `${line}_cents`
              expect(report[cents as keyof LiabilityReport]).toBe(report[line] * 10)
            }
            // On the last entry's day, the closing balance is the sum of every balance.
            const last = clock.toISOString().slice(0, 10)
            const all = await t.request(`/api/reports/liability?from=${last}&to=${last}`, {
              token: p.token,
            })
            const whole = (await all.json()) as LiabilityReport
            const [balances] = await t.db
              .select({ sum: sql<number>`coalesce(sum(${patients.points}), 0)::int` })
              .from(patients)
              .where(and(eq(patients.practice_id, p.practiceId)))
            expect(whole.closing_points).toBe(Number(balances?.sum))
          },
        ),
        { numRuns: 12, seed: 20 },
      )
    }, 240_000)
  },
)
