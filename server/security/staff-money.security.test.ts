/**
 * Staff never see money ("dashboard money figures, reports and CSV
 * exports" are for Managers and Admins). Every GET route of the API a Staff member may call is
 * walked with the Staff member's session, on the seeded demo practice (a year of history, offers
 * redeemed, a visit recorded), and every key of every answer is held against the money pattern.
 * A route is walked from the app's own route table, so a route added later is walked too; one
 * this walk cannot fill in fails the suite until it is taught here.
 */
import { and, desc, eq, isNotNull } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { WORKLIST_LISTS } from '#domain/reports.ts'
import {
  appointments,
  patientPromotions,
  patients,
  procedures,
  promotions,
} from '#server/db/schema.ts'
import { apiRoutes, fillPath, PATIENT_ROUTES, PUBLIC_ROUTES } from '#server/testing/api-routes.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

/** Keys that hold money: revenue, cents, amounts, prices, dollars, liability. */
const MONEY_KEY = /revenue|_cents$|^cents$|amount|price|dollars?$|liabilit/i

/**
 * The money a Staff member may see, and why: each is what the front desk handles with the
 * patient, not a figure of the business.
 */
const STAFF_MAY_SEE: Record<string, string[]> = {
  // The catalogue's prices: Staff record visits at catalogue prices (their role
  // reads the catalogue).
  'GET /api/procedures': ['[].price'],
  'GET /api/products': ['[].price'],
  // A visit Staff recorded at the desk: each line's unit price and what the patient pays.
  // With an offer's value taken off: what the offer took off each line and
  // the visit, which the desk tells the patient at checkout.
  // A member's visit: what the membership took off (included units, the member price) and what
  // the bank paid, with the bank after it, which the desk tells the patient.
  'GET /api/visits/:id': [
    '.visit.total_cents',
    '.visit.discount_cents',
    '.visit.allowance_cents',
    '.visit.member_discount_cents',
    '.visit.bank_cents',
    '.lines[].unit_price_cents',
    '.lines[].discount_cents',
    '.lines[].member_discount_cents',
    '.membership_bank_cents',
  ],
  // An offer's value ("$50 off HydraFacial"): what the patient is offered and the desk redeems,
  // like a catalogue price; its funnel's revenue stays for Managers and Admins.
  'GET /api/promotions': ['.data[].discount_cents'],
  'GET /api/promotions/:id': ['.discount_cents'],
  'GET /api/patients/promotions/:id': ['[].promotion.discount_cents'],
  // The patient's own balance in dollars, which the desk tells the patient (the profile shows
  // "balance and its value in dollars").
  'GET /api/patients/:id/ledger': ['.balance_value_cents'],
  // The programme's rates (what a point is worth, points per dollar spent): the checkout's points
  // preview and the balance in dollars use them; a rate the patient is told, not a business figure.
  'GET /api/practice/rules': ['.point_value_cents', '.points_per_dollar'],
  // A plan's price, setup fee and the dollars it banks each cycle: what the desk tells the patient
  // at enrolment, like a catalogue price.
  'GET /api/membership-plans': [
    '.data[].price_cents',
    '.data[].setup_fee_cents',
    '.data[].perks.bank_cents',
  ],
  'GET /api/membership-plans/:id': ['.price_cents', '.setup_fee_cents', '.perks.bank_cents'],
  // A member's plan and price, and the bank balance the desk spends with the patient: serving a
  // member at the desk needs them.
  'GET /api/patients/:id/memberships': [
    '.data[].plan.price_cents',
    '.data[].plan.setup_fee_cents',
    '.data[].plan.perks.bank_cents',
    '.data[].bank_cents',
  ],
  'GET /api/memberships': [
    '.data[].plan.price_cents',
    '.data[].plan.setup_fee_cents',
    '.data[].plan.perks.bank_cents',
    '.data[].bank_cents',
  ],
  'GET /api/memberships/:id': [
    '.plan.price_cents',
    '.plan.setup_fee_cents',
    '.plan.perks.bank_cents',
    '.bank_cents',
  ],
  // A member's charges and refunds on the timeline: what the desk answers when the patient asks
  // what was taken from the card.
  'GET /api/memberships/:id/events': ['.data[].amount_cents'],
  // The bank's history with its running balance: the patient's own money, which the desk spends
  // with them and explains entry by entry.
  'GET /api/memberships/:id/bank': [
    '.bank_cents',
    '.data[].amount_cents',
    '.data[].balance_after_cents',
  ],
}

/** Routes Staff are refused (403): money, settings and the log. Everything else is walked. */
const STAFF_REFUSED = [
  'GET /api/practice/subscription',
  'GET /api/reports/liability',
  'GET /api/reports/liability.csv',
  'GET /api/reports/patients.csv',
  'GET /api/reports/ledger.csv',
  'GET /api/audit',
  'GET /api/audit/export.csv',
  // Possible duplicates and a merge's preview show balances: a Manager's or an Admin's review.
  'GET /api/patients/duplicates',
  'GET /api/patients/:id/merge/:mergedId',
  // The Nextech sync's runs, review queue and service codes (points and bills): an Admin's.
  'GET /api/practice/integrations/nextech/runs/:id',
  'GET /api/practice/integrations/nextech/review',
  'GET /api/practice/integrations/nextech/unmapped',
]

/**
 * CSV exports Staff may read: the memberships report, counts and rates only. Their text is held
 * against the money words instead of their keys.
 */
const STAFF_CSV = new Set(['GET /api/reports/memberships.csv'])

/** Every key path of an answer that names money (`.data[].funnel.revenue_cents`). */
function moneyKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => moneyKeys(item, `${path}[]`))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(MONEY_KEY.test(key) ? [`${path}.${key}`] : []),
    ...moneyKeys(inner, `${path}.${key}`),
  ])
}

describe.each(httpBackends())('what Staff are shown, on $name', (backend) => {
  const t = useTestApp(backend)
  /** The requests of each GET route: its path filled in, with the queries it needs. */
  let requests: { key: string; paths: string[] }[] = []

  beforeAll(async () => {
    const practiceId = t.demo.practiceId
    const [patient] = await t.db
      .select({ id: patients.id })
      .from(patients)
      .where(eq(patients.practice_id, practiceId))
      .orderBy(desc(patients.points))
      .limit(1)
    const [procedure] = await t.db
      .select({ id: procedures.id })
      .from(procedures)
      .where(eq(procedures.practice_id, practiceId))
      .limit(1)
    const [redeemed] = await t.db
      .select({ id: patientPromotions.promotion_id })
      .from(patientPromotions)
      .innerJoin(promotions, eq(promotions.id, patientPromotions.promotion_id))
      .where(and(eq(promotions.practice_id, practiceId), isNotNull(patientPromotions.redeemed_at)))
      .limit(1)
    const [appointment] = await t.db
      .select({ id: appointments.id, starts_at: appointments.starts_at })
      .from(appointments)
      .where(eq(appointments.practice_id, practiceId))
      .limit(1)
    if (!patient || !procedure || !redeemed || !appointment) throw new Error('The demo is empty')
    // A visit the Staff member records at the desk, to read back.
    const recorded = await t.request('/api/visits', {
      method: 'POST',
      token: t.demo.staffToken,
      json: {
        patient_id: patient.id,
        items: [{ procedure_id: procedure.id, quantity: 1 }],
        idempotencyKey: 'staff-money-visit',
      },
    })
    expect(recorded.status).toBe(201)
    const visitId = ((await recorded.json()) as { visit: { id: number } }).visit.id
    // A plan the Admin builds once payments are connected, and the patient enrolled at the desk.
    const connected = await t.request('/api/practice/payments/connect', {
      method: 'POST',
      token: t.demo.adminToken,
    })
    expect(connected.status).toBe(200)
    const planned = await t.request('/api/membership-plans', {
      method: 'POST',
      token: t.demo.adminToken,
      json: PLAN,
    })
    expect(planned.status).toBe(201)
    const planId = ((await planned.json()) as { id: number }).id
    const enrolled = await t.request(`/api/patients/${patient.id}/memberships`, {
      method: 'POST',
      token: t.demo.staffToken,
      json: {
        plan_id: planId,
        payment_method_token: cardToken(t, CARDS.ok),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'The patient' },
        idempotencyKey: 'staff-money-membership',
      },
    })
    expect(enrolled.status).toBe(201)
    const membershipId = ((await enrolled.json()) as { id: number }).id
    const day = appointment.starts_at.toISOString().slice(0, 10)
    const dayAfter = new Date(appointment.starts_at.getTime() + 86_400_000)
      .toISOString()
      .slice(0, 10)

    requests = apiRoutes(t.app)
      // The staff's routes: the patient's wallet refuses staff tokens (its own tests walk it).
      .filter(
        (route) =>
          route.method === 'GET' && !PUBLIC_ROUTES.has(route.key) && !PATIENT_ROUTES.has(route.key),
      )
      .map((route) => {
        const path = fillPath(route.path, (name) => {
          if (name === 'practiceId') return String(practiceId)
          if (name === 'date') return day
          if (route.path.includes('/by-practice/')) return String(practiceId)
          if (route.path.startsWith('/api/promotions/')) return String(redeemed.id)
          if (route.path.startsWith('/api/appointments/')) return String(appointment.id)
          if (route.path.startsWith('/api/visits/')) return String(visitId)
          if (route.path.startsWith('/api/users/')) return String(t.demo.staff.id)
          if (route.path.startsWith('/api/membership-plans/')) return String(planId)
          if (route.path.startsWith('/api/memberships/')) return String(membershipId)
          return String(patient.id)
        })
        const queries: Record<string, string[]> = {
          '/api/procedures': [`?practice=${practiceId}`],
          '/api/products': [`?practice=${practiceId}`],
          '/api/appointments': [`?from=${day}&to=${dayAfter}`],
          '/api/reports/worklist': WORKLIST_LISTS.map((list) => `?list=${list}`),
          '/api/promotions': ['', '?status=live', '?status=ended'],
        }
        return { key: route.key, paths: (queries[route.path] ?? ['']).map((q) => `${path}${q}`) }
      })
  }, 60_000)

  it('walks every GET a Staff member may call and finds no money but the allowed', async () => {
    const found: Record<string, string[]> = {}
    const refused: string[] = []
    for (const { key, paths } of requests) {
      for (const path of paths) {
        const response = await t.request(path, { token: t.demo.staffToken })
        if (response.status === 403) {
          refused.push(key)
          await response.body?.cancel()
          continue
        }
        // Every other route answers the walk (a 400 or 404 would mean it was not walked).
        expect(response.status, path).toBe(200)
        if (STAFF_CSV.has(key)) {
          expect(response.headers.get('Content-Type'), path).toContain('text/csv')
          expect(await response.text(), path).not.toMatch(/dollars|cents|mrr|bank|\$/i)
          continue
        }
        expect(response.headers.get('Content-Type'), path).toContain('application/json')
        const keys = moneyKeys(await response.json())
        if (keys.length > 0) found[key] = [...new Set([...(found[key] ?? []), ...keys])].sort()
      }
    }
    // Staff once read the offers' revenue: GET /api/promotions and /api/promotions/:id
    // answered `funnel.revenue_cents`.
    expect(found).toEqual(
      Object.fromEntries(
        Object.entries(STAFF_MAY_SEE)
          .filter(([key]) => found[key])
          .map(([key, keys]) => [key, [...keys].sort()]),
      ),
    )
    // The allow-list is not stale: each allowed key is really there.
    expect(Object.keys(found).sort()).toEqual(Object.keys(STAFF_MAY_SEE).sort())
    expect([...new Set(refused)].sort()).toEqual([...STAFF_REFUSED].sort())
  })

  it('still shows a Manager the money Staff do not see, so the walk would find it', async () => {
    const { paths } = requests.find((r) => r.key === 'GET /api/promotions/:id') ?? { paths: [] }
    const [path] = paths
    if (!path) throw new Error('no offer route')
    const manager = await t.request(path, { token: t.demo.adminToken })
    expect(moneyKeys(await manager.json())).toContain('.funnel.revenue_cents')
    const staff = await t.request(path, { token: t.demo.staffToken })
    // The offer's value only (the desk redeems it), never its revenue.
    expect(moneyKeys(await staff.json())).toEqual(STAFF_MAY_SEE['GET /api/promotions/:id'])
    const liability = await t.request('/api/reports/liability', { token: t.demo.staffToken })
    expect(liability.status).toBe(403)
    expect(((await liability.json()) as { error: { message: string } }).error.message).toBe(
      PERMISSION_REFUSALS['reports.money'],
    )
  })
})
