import { and, eq, sql } from 'drizzle-orm'
import Papa from 'papaparse'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MembershipReport } from '#domain/membership-reports.ts'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { addDays, dayOf, monthStart } from '#domain/report-period.ts'
import { auditEvents, procedures } from '#server/db/schema.ts'
import {
  expectBalanced,
  expectChangesAsRebuilt,
  moneyKeys,
} from '#server/testing/membership-report.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'
import { MEMBERSHIP_REPORT_COLUMNS } from './routes.ts'

const sumOf = (
  report: MembershipReport,
  key: keyof NonNullable<MembershipReport['mrr_movement']>[number],
) => (report.mrr_movement ?? []).reduce((sum, month) => sum + (month[key] as number), 0)

describe.each(testBackends())('the memberships report on $name', (backend) => {
  const t = useTestApp(backend)
  const practice = usePracticeFixture(t, { name: 'Report Practice' })
  const manager = useMember(t, 'Manager', practice)
  const staff = useMember(t, 'Staff', practice)
  const json = async (
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ) => {
    const response = await t.request(`/api${path}`, { token: manager.token, ...init })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const clock = async (days: number) => {
    const moved = await json('/dev/clock', { method: 'POST', json: { days } })
    expect(moved.status).toBe(200)
    return new Date(moved.body.now as string)
  }
  const report = async (query: string, token = manager.token) => {
    const answer = await json(`/reports/memberships${query}`, { token })
    expect(answer.status).toBe(200)
    return answer.body as unknown as MembershipReport
  }
  const ids = { monthly: 0, quarterly: 0, item: 0 }
  const members: { id: number; patientId: number }[] = []
  let enrolledOn = ''

  beforeAll(async () => {
    const connect = await json('/practice/payments/connect', {
      method: 'POST',
      token: practice.token,
    })
    expect(connect.status).toBe(200)
    const [item] = await t.db
      .insert(procedures)
      .values({ practice_id: practice.practiceId, name: 'Report HydraFacial', price: 19_900 })
      .returning()
    ids.item = item?.id as number
    const perks = {
      ...PLAN.perks,
      allowances: [{ catalogue_item_id: ids.item, quantity: 1, rollover_cap: 0 }],
    }
    const monthly = await json('/membership-plans', {
      method: 'POST',
      json: { ...PLAN, name: 'Report Monthly', min_cycles: 1, perks },
    })
    const quarterly = await json('/membership-plans', {
      method: 'POST',
      json: {
        ...PLAN,
        name: 'Report Quarterly',
        price_cents: 30_000,
        interval: 'quarter',
        min_cycles: 1,
        perks,
      },
    })
    expect([monthly.status, quarterly.status]).toEqual([201, 201])
    ids.monthly = monthly.body.id as number
    ids.quarterly = quarterly.body.id as number
  })

  const enrol = async (name: string, planId: number) => {
    const patient = await insertPatient(t.db, {
      practice_id: practice.practiceId,
      first_name: name,
      last_name: 'Member',
      email: `${name.toLowerCase()}.${Math.random().toString(36).slice(2)}@example.com`,
    })
    const enrolled = await json(`/patients/${patient.id}/memberships`, {
      method: 'POST',
      token: staff.token,
      json: {
        plan_id: planId,
        payment_method_token: cardToken(t, CARDS.ok),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: name },
        idempotencyKey: `report-${name}-${Math.random().toString(36).slice(2)}`,
      },
    })
    expect(enrolled.status).toBe(201)
    members.push({ id: enrolled.body.id as number, patientId: patient.id })
    return enrolled.body.id as number
  }

  it('counts, values and balances a practice with no members', async () => {
    const empty = await report('')
    expect(empty).toMatchObject({
      active: 0,
      new: 0,
      cancelled: 0,
      churn_rate: null,
      recovery_rate: null,
      mrr_cents: 0,
      bank: { opening_cents: 0, closing_cents: 0, members_cents: 0 },
      allowances_outstanding: [],
    })
    expectBalanced(empty)
    // By default, the 12 months to today (the billing clock's), month by month.
    expect(empty.to).toBe(empty.today)
    expect(empty.mrr_movement?.map((month) => month.month)).toHaveLength(12)
    expect(empty.from).toBe(`${empty.mrr_movement?.[0]?.month}-01`)
    expect(empty.mrr_movement?.at(-1)?.month).toBe(empty.today.slice(0, 7))
  })

  it('follows enrolments, a renewal, a decline that turns unpaid and pays again, and a cancel, to the cent', async () => {
    const start = await clock(0)
    enrolledOn = dayOf(start)
    const ana = await enrol('Ana', ids.monthly)
    const ben = await enrol('Ben', ids.monthly)
    await enrol('Cleo', ids.quarterly)
    // Ben's card is replaced by one that attaches but is declined when charged.
    const swapped = await json(`/memberships/${ben}/card`, {
      method: 'PUT',
      json: { payment_method_token: cardToken(t, CARDS.failsWhenCharged) },
    })
    expect(swapped.status).toBe(200)

    const first = await report('')
    expect(first).toMatchObject({
      new: 3,
      active: 3,
      past_due: 0,
      mrr_cents: 9_900 + 9_900 + 10_000,
    })
    expect(sumOf(first, 'new_cents')).toBe(29_800)
    expect(first.bank).toMatchObject({
      paid_in_cents: 15_000,
      closing_cents: 15_000,
      members_cents: 15_000,
    })
    expect(first.allowances_outstanding).toEqual([
      { catalogue_item_id: ids.item, name: 'Report HydraFacial', units: 3, value_cents: 59_700 },
    ])
    expectBalanced(first)

    // The monthly renewals fall due: Ana's is paid, Ben's declined (past due, still in MRR).
    await clock(30)
    const renewed = await report(`?from=${monthStart(enrolledOn)}`)
    expect(renewed).toMatchObject({ active: 2, past_due: 1, mrr_cents: 29_800 })
    expect(renewed.bank?.paid_in_cents).toBe(20_000)
    expectBalanced(renewed)

    // Every retry declined: Ben is unpaid, involuntary churn.
    await clock(10)
    const lapsed = await report(`?from=${monthStart(enrolledOn)}`)
    expect(lapsed).toMatchObject({
      active: 2,
      unpaid: 1,
      recovered: 0,
      not_recovered: 1,
      recovery_rate: 0,
    })
    expect(lapsed.mrr_cents).toBe(19_900)
    expect(sumOf(lapsed, 'involuntary_churn_cents')).toBe(9_900)
    expectBalanced(lapsed)

    // A month on, Ben's new card pays (reactivation) and Ana ends now (voluntary churn).
    await clock(31)
    const paid = await json(`/memberships/${ben}/card`, {
      method: 'PUT',
      json: { payment_method_token: cardToken(t, CARDS.ok) },
    })
    expect(paid.status).toBe(200)
    const ended = await json(`/memberships/${ana}/cancel`, {
      method: 'POST',
      json: { at: 'now', refund: false },
    })
    expect(ended.status).toBe(200)
    const today = dayOf(await clock(0))
    const whole = await report(`?from=${monthStart(enrolledOn)}&to=${today}`)
    expect(whole).toMatchObject({
      new: 3,
      active: 2,
      unpaid: 0,
      past_due: 0,
      cancelled: 1,
      cancelled_by_reason: { patient: 1, staff: 0, failed_payment: 0 },
      mrr_cents: 19_900,
    })
    expect(whole.mrr_movement?.[0]?.opening_mrr_cents).toBe(0)
    expect(sumOf(whole, 'new_cents')).toBe(29_800)
    expect(sumOf(whole, 'involuntary_churn_cents')).toBe(9_900)
    expect(sumOf(whole, 'reactivation_cents')).toBe(9_900)
    expect(sumOf(whole, 'voluntary_churn_cents')).toBe(9_900)
    expect(whole.bank?.closing_cents).toBe(whole.bank?.members_cents)
    expectBalanced(whole)
    // Ana's allowance is gone with her; Ben's and Cleo's units are valued at the catalogue price.
    expect(whole.allowances_outstanding).toEqual([
      { catalogue_item_id: ids.item, name: 'Report HydraFacial', units: 2, value_cents: 39_800 },
    ])

    // From the day after the enrolments: three members at the start, one of them gone.
    const since = await report(`?from=${addDays(enrolledOn, 1)}&to=${today}`)
    expect(since).toMatchObject({ members_at_start: 3, churned: 1, churn_rate: 0.3333, new: 0 })
    expectBalanced(since)
  })

  it('gives Staff the counts and not one money figure', async () => {
    const today = dayOf(await clock(0))
    const full = await report(`?from=${monthStart(enrolledOn)}&to=${today}`)
    const counts = await report(`?from=${monthStart(enrolledOn)}&to=${today}`, staff.token)
    expect(moneyKeys(counts)).toEqual([])
    expect(counts.mrr_movement).toBeUndefined()
    expect(counts.bank).toBeUndefined()
    const { mrr_cents: _m, mrr_movement: _v, bank: _b, allowances_outstanding, ...rest } = full
    expect(counts).toEqual({
      ...rest,
      allowances_outstanding: allowances_outstanding.map(({ value_cents: _c, ...item }) => item),
    })
    expect(moneyKeys(full).length).toBeGreaterThan(0)
  })

  it('exports the same numbers as CSV, counts only for Staff, and audits each export', async () => {
    const today = dayOf(await clock(0))
    const query = `?from=${monthStart(enrolledOn)}&to=${today}`
    const full = await report(query)
    const response = await t.request(`/api/reports/memberships.csv${query}`, {
      token: manager.token,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toBe(
      `attachment; filename="memberships-${monthStart(enrolledOn)}-to-${today}.csv"`,
    )
    const parsed = Papa.parse<Record<string, string>>((await response.text()).trimEnd(), {
      header: true,
    })
    expect(parsed.meta.fields).toEqual([...MEMBERSHIP_REPORT_COLUMNS])
    const value = (measure: string, month = '') =>
      parsed.data.find((row) => row.measure === measure && row.month === month)?.value
    expect(value('active')).toBe(String(full.active))
    expect(value('cancelled_by_patient')).toBe('1')
    expect(value('churn_rate')).toBe(String(full.churn_rate ?? ''))
    expect(value('mrr_dollars')).toBe(String((full.mrr_cents ?? 0) / 100))
    const last = full.mrr_movement?.at(-1)
    expect(value('closing_mrr_dollars', last?.month)).toBe(
      String((last?.closing_mrr_cents ?? 0) / 100),
    )
    expect(value('bank_closing_dollars')).toBe(String((full.bank?.closing_cents ?? 0) / 100))
    expect(value('allowance_units:Report HydraFacial')).toBe('2')

    const counts = await t.request(`/api/reports/memberships.csv${query}`, { token: staff.token })
    expect(counts.status).toBe(200)
    const text = await counts.text()
    expect(text).toContain('active,,2')
    expect(text).not.toMatch(/dollars|mrr|bank/)
    const audited = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.action, 'report.exported'),
          eq(auditEvents.practice_id, practice.practiceId),
          sql`${auditEvents.details}->>'report' = 'memberships'`,
        ),
      )
    expect(audited).toHaveLength(2)
  })

  it('keeps each change with the state before and after it, whatever order it is written in', async () => {
    const id = await enrol('Dora', ids.monthly)
    const rowsOf = async (query: ReturnType<typeof sql>) =>
      ((await t.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows
    const [enrolled] = await rowsOf(
      sql`select e.at, m.plan_version_id from membership_events e join memberships m
          on m.id = e.membership_id where e.membership_id = ${id} and e.kind = 'enrolled'`,
    )
    const [quarterly] = await rowsOf(
      sql`select id from membership_plan_versions where plan_id = ${ids.quarterly}`,
    )
    const day = (n: number) => new Date(new Date(String(enrolled?.at)).getTime() + n * 86_400_000)
    const event = (kind: string, at: Date, version: unknown = null) =>
      t.db.execute(sql`
        insert into membership_events (practice_id, membership_id, kind, detail, plan_version_id, at)
        values (${practice.practiceId}, ${id}, ${kind}, 'Written out of order.',
          ${version}::int, ${at.toISOString()}::timestamptz)`)
    // Written last to first (as a bulk load might): a renewal paid on its retry on day 10, a pause
    // at the same instant (an event comes before a charge), the past-due day before them, and a
    // change of plan now before all of them.
    await t.db.execute(sql`
      insert into membership_charges (practice_id, membership_id, cycle, purpose, attempt,
        amount_cents, status, idempotency_key, created_at, settled_at)
      values (${practice.practiceId}, ${id}, 2, 'cycle', 2, 9900, 'succeeded',
        ${`report-out-of-order-${id}`}, ${day(10).toISOString()}::timestamptz,
        ${day(10).toISOString()}::timestamptz)`)
    await event('paused', day(10))
    await event('past_due', day(5))
    await event('plan_changed', day(3), quarterly?.id)
    const changes = await rowsOf(
      sql`select source, sets_status, status_before, status_after, plan_version_before,
            plan_version_after
          from membership_changes where membership_id = ${id} order by at, source, source_id`,
    )
    const version = Number(enrolled?.plan_version_id)
    const other = Number(quarterly?.id)
    const n = (value: unknown) => (value === null ? null : Number(value))
    expect(
      changes.map((c) => [
        n(c.source),
        c.status_before,
        c.status_after,
        n(c.plan_version_before),
        n(c.plan_version_after),
      ]),
    ).toEqual([
      // The enrolment, then its first cycle (the plan version).
      [0, null, 'active', null, null],
      [2, 'active', 'active', null, version],
      [3, 'active', 'active', version, other],
      [0, 'active', 'past_due', other, other],
      [0, 'past_due', 'paused', other, other],
      [1, 'paused', 'active', other, other],
    ])
    await expectChangesAsRebuilt(t.db, practice.practiceId)
  })

  it('refuses a period that ends before it starts', async () => {
    const refused = await json('/reports/memberships?from=2026-05-02&to=2026-05-01')
    expect(refused.status).toBe(400)
  })
})
