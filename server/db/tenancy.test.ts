/**
 * The tenancy check (docs/decisions/017-scaling-out.md): what makes distributing the
 * database by practice (Citus, `practice_id` as the distribution column) possible, held by tests
 * so that a new table, foreign key or query cannot quietly break it.
 *
 * 1. The schema: every tenant table has a non-null `practice_id`; every foreign key between two
 *    tenant tables includes `practice_id` or is checked by the database to stay within the
 *    practice (the `tenant_same_practice` triggers of migration 0031), and the database refuses a
 *    row that points into another practice.
 * 2. The queries: an API journey through the portal (sign-in, search, profile, visits,
 *    redemptions, offers, appointments, settings, reports, jobs) runs with a logger on the drizzle
 *    client, and every statement that touches a tenant table must pass {@link RULE}.
 */

import { createHash } from 'node:crypto'
import { is, sql } from 'drizzle-orm'
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { createExpiryJob } from '#server/jobs/expiry-job.ts'
import { enqueueMessage } from '#server/messaging/outbound.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import {
  createPracticeFixture,
  createTestApp,
  type PracticeFixture,
  pgliteBackendWith,
  type TestApp,
  testBackends,
} from '#server/testing/test-app.ts'
import * as schema from './schema.ts'
import { appointments, outbox, patients } from './schema.ts'

/**
 * The tables that belong to no practice, each with why. Every other table is a tenant table. In a
 * distributed database the first three are reference tables (copied to every node); the rest stay
 * on the coordinator.
 */
const GLOBAL_TABLES: Record<string, string> = {
  practices: 'the tenant itself: its `id` is the practice id',
  plans: 'the price list, the same for every practice',
  coupons: 'promo codes, valid for any practice',
  verification_codes: 'a phone verified during sign-up, before the practice exists',
  payments: 'a card paid for during sign-up, before the practice exists',
  audit_events:
    'one hash chain over every event of every practice; sign-up and unknown e-mails have no practice',
  outbox: 'the development outbox: every message sent, whoever it was for',
  outbound_messages: 'the queue every process drains across practices',
  rate_limits: 'counters per address, account or the whole server',
  test_gateway_customers: "the built-in test gateway, standing in for Stripe's customers",
  test_gateway_subscriptions: "the built-in test gateway, standing in for Stripe's subscriptions",
  test_gateway_idempotency: "the built-in test gateway's idempotency keys",
  test_gateway_accounts: "the built-in test gateway, standing in for Stripe's connected accounts",
  test_gateway_member_customers:
    "the built-in test gateway, standing in for the connected accounts' customers",
  test_gateway_charges:
    "the built-in test gateway, standing in for the connected accounts' charges",
  payment_webhook_events:
    "the gateway's events, applied once by their id: the id comes before the practice is known",
  billing_clock: "one row: the billing clock's offset, shared by every process and practice",
}

/**
 * Foreign keys between tenant tables that do not include `practice_id` (table → column → the
 * referenced table): each is checked by the `tenant_same_practice` trigger of its table, which
 * refuses a row whose reference names a row of another practice. Composite keys would do the same
 * and are what a distributed database needs (decision 017 says when).
 */
const SAME_PRACTICE_CHECKED: Record<string, Record<string, string>> = {
  personnel_invitations: { invited_by: 'users' },
  patients: { merged_into_id: 'patients' },
  appointments: { patient_id: 'patients', procedure_id: 'procedures' },
  activities: { patient_id: 'patients' },
  promotions: { created_by: 'users' },
  patient_promotions: { patient_id: 'patients', promotion_id: 'promotions', claimed_by: 'users' },
  promotion_sends: { promotion_id: 'promotions', patient_id: 'patients' },
  uploads: { uploaded_by: 'users' },
  reset_codes: { user_id: 'users' },
  ledger_entries: { patient_id: 'patients', created_by: 'users' },
  points_reminders: { lot_entry_id: 'ledger_entries', patient_id: 'patients' },
  ledger_allocations: {
    patient_id: 'patients',
    debit_entry_id: 'ledger_entries',
    lot_entry_id: 'ledger_entries',
  },
  visits: {
    patient_id: 'patients',
    appointment_id: 'appointments',
    created_by: 'users',
    approved_by: 'users',
    undone_by: 'users',
    membership_id: 'memberships',
  },
  visit_items: { visit_id: 'visits', entry_id: 'ledger_entries' },
  redemption_codes: { patient_id: 'patients', created_by: 'users' },
  codeless_redemptions: { patient_id: 'patients', entry_id: 'ledger_entries' },
  patient_import_rows: { patient_id: 'patients', created_by: 'users' },
  patient_merges: { kept_id: 'patients', merged_id: 'patients', created_by: 'users' },
  nextech_patients: { patient_id: 'patients' },
  nextech_claim_lines: { patient_id: 'patients' },
  nextech_service_codes: { procedure_id: 'procedures', product_id: 'products' },
  nextech_reviews: { resolved_by: 'users' },
  payment_accounts: { connected_by: 'users' },
  membership_plan_versions: { plan_id: 'membership_plans' },
  memberships: {
    patient_id: 'patients',
    plan_version_id: 'membership_plan_versions',
    next_plan_version_id: 'membership_plan_versions',
    consent_taken_by: 'users',
  },
  membership_charges: { membership_id: 'memberships', created_by: 'users' },
  membership_cycles: {
    membership_id: 'memberships',
    plan_version_id: 'membership_plan_versions',
    charge_id: 'membership_charges',
  },
  membership_bank_entries: { membership_id: 'memberships', visit_id: 'visits' },
  membership_allowances: { membership_id: 'memberships', catalogue_item_id: 'procedures' },
  membership_events: {
    membership_id: 'memberships',
    user_id: 'users',
    plan_version_id: 'membership_plan_versions',
  },
  membership_changes: { membership_id: 'memberships' },
  wallet_codes: { patient_id: 'patients' },
  patient_sessions: { patient_id: 'patients' },
}

const tables: PgTable[] = Object.values(schema as Record<string, unknown>).filter(
  (value): value is PgTable => is(value, PgTable),
)
const configs = tables.map((table) => getTableConfig(table))
const tenantTables = configs.filter((c) => !(c.name in GLOBAL_TABLES))
const tenantNames = new Set(tenantTables.map((c) => c.name))

/** Every foreign key of a tenant table to another tenant table: `table.column → parent`. */
function tenantForeignKeys() {
  return tenantTables.flatMap((config) =>
    config.foreignKeys.map((fk) => {
      const ref = fk.reference()
      return {
        table: config.name,
        columns: ref.columns.map((c) => c.name),
        parent: getTableConfig(ref.foreignTable).name,
      }
    }),
  )
}

/** The error a driver threw, or the one drizzle wrapped, with its SQLSTATE. */
async function failureOf(work: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await work
  } catch (error) {
    let e: unknown = error
    while (e && typeof e === 'object' && !('code' in e) && 'cause' in e) e = e.cause
    const found = e as { code?: string; message?: string }
    return { code: found.code, message: found.message ?? String(error) }
  }
  throw new Error('the statement was accepted')
}

describe('the schema: every tenant row names its practice', () => {
  it('lists only tables that exist as global', () => {
    const names = new Set(configs.map((c) => c.name))
    expect(Object.keys(GLOBAL_TABLES).filter((name) => !names.has(name))).toEqual([])
  })

  it('gives every tenant table a non-null practice_id', () => {
    const lacking = tenantTables
      .filter((c) => !c.columns.some((col) => col.name === 'practice_id' && col.notNull))
      .map((c) => c.name)
    expect(lacking).toEqual([])
    expect(tenantTables.length).toBeGreaterThan(15)
  })

  it('has every foreign key between tenant tables include practice_id or checked by a trigger', () => {
    const unchecked: string[] = []
    const checked = new Set<string>()
    for (const fk of tenantForeignKeys()) {
      if (!tenantNames.has(fk.parent) || fk.columns.includes('practice_id')) continue
      const [column] = fk.columns
      const key = `${fk.table}.${column} → ${fk.parent}`
      if (
        fk.columns.length === 1 &&
        SAME_PRACTICE_CHECKED[fk.table]?.[column as string] === fk.parent
      )
        checked.add(key)
      else unchecked.push(key)
    }
    expect(unchecked).toEqual([])
    // The list names no key that is not there.
    const listed = Object.entries(SAME_PRACTICE_CHECKED).flatMap(([table, columns]) =>
      Object.entries(columns).map(([column, parent]) => `${table}.${column} → ${parent}`),
    )
    expect([...checked].sort()).toEqual(listed.sort())
  })
})

describe.each(testBackends())('the same-practice triggers on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)

  it('are on every listed table, with exactly the listed references', async () => {
    const result = await t.db.execute<{ table: string; definition: string }>(sql`
      select c.relname as "table", pg_get_triggerdef(tr.oid) as definition
        from pg_trigger tr join pg_class c on c.oid = tr.tgrelid
        join pg_proc p on p.oid = tr.tgfoid
       where p.proname = 'tenant_same_practice' and not tr.tgisinternal`)
    const rows = (result as unknown as { rows: { table: string; definition: string }[] }).rows
    const found: Record<string, Record<string, string>> = {}
    for (const row of rows) {
      const args = /tenant_same_practice\((.*)\)$/.exec(row.definition)?.[1] ?? ''
      const values = [...args.matchAll(/'([^']*)'/g)].map((m) => m[1] as string)
      const pairs: Record<string, string> = {}
      for (let i = 0; i < values.length; i += 2)
        pairs[values[i] as string] = values[i + 1] as string
      found[row.table] = pairs
      // Inserts and updates of the references (or of the practice) are checked.
      expect(row.definition).toMatch(/BEFORE INSERT OR UPDATE OF/)
    }
    expect(found).toEqual(SAME_PRACTICE_CHECKED)
  })

  it("refuses a row that points at another practice's row, and accepts its own", async () => {
    const refused = await failureOf(
      t.db.insert(appointments).values({
        practice_id: t.demo.practiceId,
        patient_id: other.patientId,
        starts_at: new Date(),
      }),
    )
    expect(refused.code).toBe('23514')
    expect(refused.message).toContain(
      `appointments.patient_id = ${other.patientId} is a row of practice ${other.practiceId}, not of the row's practice ${t.demo.practiceId}`,
    )
    const [own] = await t.db
      .select({ id: patients.id })
      .from(patients)
      .where(sql`${patients.practice_id} = ${t.demo.practiceId}`)
      .limit(1)
    if (!own) throw new Error('the demo practice has no patient')
    const inserted = await t.db
      .insert(appointments)
      .values({ practice_id: t.demo.practiceId, patient_id: own.id, starts_at: new Date() })
      .returning({ id: appointments.id })
    expect(inserted).toHaveLength(1)
  })

  it('refuses an update that moves a reference into another practice', async () => {
    const refused = await failureOf(
      t.db
        .update(appointments)
        .set({ procedure_id: other.procedureId })
        .where(sql`${appointments.practice_id} = ${t.demo.practiceId}`),
    )
    expect(refused.code).toBe('23514')
    expect(refused.message).toContain('appointments.procedure_id')
  })
})

/** One statement the app sent, with the step of the journey that sent it. */
type Logged = { step: string; query: string; params: unknown[] }

/**
 * The rule every statement that touches a tenant table obeys, in order:
 * 1. an INSERT names `practice_id` among its columns; or
 * 2. it compares a `practice_id` column with a parameter (`practice_id = $n`, `in ($n…)`,
 *    `= any($n)`): it reads or writes rows of one practice; or
 * 3. it reads one row of a table by its primary key (`"t"."id" = $n`) and selects that row's
 *    `practice_id`: the route compares it with the session's practice before it uses the row
 *    (`ownRow` in server/http/scope.ts, or the service's own check) and answers 404 for another
 *    practice's row; or
 * 4. it selects or changes rows by a key (`id`, or a column that references a tenant table) whose
 *    values are all parameters that an earlier statement of the same step sent to that table
 *    under rules 1 to 3: rows whose practice the request already checked (the ledger after the
 *    profile); or
 * 5. it is on {@link ALLOWED}, which says why it may cross practices.
 * Rule 4 compares values, not rows: a value that also happens to be a parameter of an unrelated
 * checked statement passes. Together with the same-practice triggers (a checked row only points
 * at rows of its own practice), a statement under rule 4 stays within the practice. Statements
 * under rules 3 to 5 are not yet routable by practice in a distributed database (decision 017).
 */
const RULE = 'practice_id in an insert, a practice_id filter, a checked key, or allowed'

/** Why a statement of one of these steps (or any step) may leave out the practice. */
type Allowance = { table: string; match: RegExp; step?: RegExp; why: string }

const EXPIRY_JOB = /^expiry job$/
const OFFER_LINK = /^(GET|POST) \/api\/offers\//

/**
 * Statements that may touch a tenant table without naming its practice: by the table, a part of
 * the statement and optionally the journey's step, each with why.
 */
const ALLOWED: Allowance[] = [
  {
    table: 'users',
    match: /"users"\."email" = \$\d+/,
    why: 'sign-in, reset and sign-up find the account by its e-mail, unique across practices',
  },
  {
    table: 'users',
    match: /^update "users" set "last_sign_in_at" = \$\d+ where "users"\."id" = \$\d+$/,
    step: /^POST \/api\/auth\/local$/,
    why: 'a sign-in notes when: the account it found by its e-mail (the id from that row)',
  },
  {
    table: 'reset_codes',
    match: /"reset_codes"\."code_hash" = \$\d+/,
    why: "a reset link's code, found by its hash (256 random bits): the code is the grant",
  },
  {
    table: 'reset_codes',
    match: /"reset_codes"\."user_id" = \$\d+/,
    why: "a used reset code ends its user's other codes (the user came from the code)",
  },
  {
    table: 'patients',
    match: /"patients"\."unsubscribe_id" = \$\d+/,
    why: "an unsubscribe link's random token (the patient's own link, no session)",
  },
  {
    table: 'promotion_sends',
    match: /"promotion_sends"\."token" = \$\d+/,
    why: "an offer link's random token (the patient's own link, no session)",
  },
  {
    table: 'promotions',
    match: /"promotion_sends"\."token" = \$\d+/,
    why: "the offer an offer link's random token names, read with it",
  },
  ...['patient_promotions', 'promotions', 'patients', 'activities', 'ledger_entries'].map(
    (table): Allowance => ({
      table,
      match: /./,
      step: OFFER_LINK,
      why: 'an offer link (no session): the patient and the offer its random token named',
    }),
  ),
  ...[
    'ledger_entries',
    'ledger_allocations',
    'patients',
    'patient_promotions',
    'points_reminders',
  ].map(
    (table): Allowance => ({
      table,
      match: /./,
      step: EXPIRY_JOB,
      why: 'the daily expiry job: lots and claims that lapsed, in every practice',
    }),
  ),
]

/** The tenant tables a statement names after from, join, update, into or delete from. */
function tablesOf(query: string): string[] {
  const found = new Set<string>()
  for (const m of query.matchAll(/\b(?:from|join|update|into)\s+"?([a-z_]+)"?/gi)) {
    const name = (m[1] as string).toLowerCase()
    if (tenantNames.has(name)) found.add(name)
  }
  return [...found]
}

const PRACTICE_FILTER = /practice_id"?\s*(?:=\s*(?:any\s*\(\s*)?\$\d+|in\s*\(\s*\$\d+)/i

/** A key compared with parameters: `"t"."col" = $n` or `"t"."col" in ($n, $m)`. */
const KEY_FILTER = /"?([a-z_]+)"?\s*(?:=\s*\$(\d+)|in \(((?:\$\d+(?:, )?)+)\))/gi

/** The foreign-key columns of each tenant table, to the tenant table they reference. */
const referencesOf = new Map<string, string>(
  tenantForeignKeys()
    .filter((fk) => fk.columns.length === 1 && tenantNames.has(fk.parent))
    .map((fk) => [fk.columns[0] as string, fk.parent]),
)

/** Whether `query` reads one row of `table` by its id and selects its practice (rule 3). */
function byPrimaryKey(query: string, table: string): boolean {
  const where = new RegExp(`where "${table}"\\."id" = \\$\\d+(?: limit \\$\\d+)?(?: for update)?$`)
  return (
    /^select\b/.test(query) && where.test(query) && /^select .*"practice_id".* from /.test(query)
  )
}

/** The statements of `log` that break {@link RULE}, each as `step: statement`. */
function breaches(log: Logged[]): string[] {
  const out: string[] = []
  // Per step: the parameters each tenant table was sent under rules 1 to 3.
  const checked = new Map<string, Set<string>>()
  let step = ''
  for (const entry of log) {
    if (entry.step !== step) {
      step = entry.step
      checked.clear()
    }
    const touched = tablesOf(entry.query)
    if (touched.length === 0) continue
    const insert = /^\s*insert into "?[a-z_]+"?\s*\(([^)]*)\)/i.exec(entry.query)
    const byPractice =
      (insert && /"practice_id"/.test(insert[1] as string)) || PRACTICE_FILTER.test(entry.query)
    const onePractice =
      byPractice || (touched.length === 1 && byPrimaryKey(entry.query, touched[0] as string))
    if (onePractice) {
      for (const table of touched) {
        const values = checked.get(table) ?? new Set<string>()
        for (const value of entry.params) values.add(String(value))
        checked.set(table, values)
      }
      continue
    }
    const byCheckedKey = [...entry.query.matchAll(KEY_FILTER)].some((m) => {
      const column = m[1] as string
      const positions = m[2] ? [m[2]] : [...(m[3] as string).matchAll(/\$(\d+)/g)].map((p) => p[1])
      const parents = column === 'id' ? touched : [referencesOf.get(column)].filter(Boolean)
      return parents.some((parent) =>
        positions.every((n) =>
          checked.get(parent as string)?.has(String(entry.params[Number(n) - 1])),
        ),
      )
    })
    if (byCheckedKey) continue
    const allowed = (table: string) =>
      ALLOWED.some(
        (a) =>
          a.table === table && a.match.test(entry.query) && (!a.step || a.step.test(entry.step)),
      )
    if (touched.every(allowed)) continue
    out.push(`${entry.step}: ${entry.query}`)
  }
  return out
}

describe('the rule over a query log', () => {
  const step = 'GET /api/patients/7/ledger'
  const profile = {
    step,
    query:
      'select "id", "points" from "patients" where ("patients"."id" = $1 and "patients"."practice_id" = $2)',
    params: [7, 1],
  }
  const ledger = {
    step,
    query: 'select "id" from "ledger_entries" where "ledger_entries"."patient_id" = $1',
    params: [7],
  }

  it('reports a statement on a tenant table without its practice', () => {
    const search = {
      step: 'GET /api/patients',
      query: 'select "id" from "patients" where "patients"."last_name" = $1',
      params: ['Smith'],
    }
    expect(breaches([search])).toEqual([`GET /api/patients: ${search.query}`])
  })

  it('accepts a key checked earlier in the same request, and only then', () => {
    expect(breaches([profile, ledger])).toEqual([])
    expect(breaches([ledger])).toEqual([`${step}: ${ledger.query}`])
    expect(breaches([profile, { ...ledger, params: [8] }])).toHaveLength(1)
    expect(breaches([profile, { ...ledger, step: 'GET /api/patients/7' }])).toHaveLength(1)
  })

  it('accepts an insert that names the practice, and no other', () => {
    const insert = (columns: string) => ({
      step: 'POST /api/patients',
      query: `insert into "patients" (${columns}) values ($1, $2)`,
      params: [1, 'Ada'],
    })
    expect(breaches([insert('"practice_id", "first_name"')])).toEqual([])
    expect(breaches([insert('"id", "first_name"')])).toHaveLength(1)
  })

  it('ignores statements on global tables only', () => {
    const plans = { step: 'GET /api/practice/plans', query: 'select "id" from "plans"', params: [] }
    expect(breaches([plans])).toEqual([])
  })
})

describe('the queries: every statement of an API journey stays within a practice', () => {
  const log: Logged[] = []
  let step = ''
  let t: TestApp
  let other: PracticeFixture

  beforeAll(async () => {
    t = await createTestApp(
      pgliteBackendWith({
        logger: {
          logQuery(query, params) {
            if (step) log.push({ step, query, params })
          },
        },
      }),
    )
    other = await createPracticeFixture(t.db)
  })
  afterAll(() => t.close())

  /** Runs `work` as the journey's step `name`, its statements logged under that name. */
  async function as<T>(name: string, work: () => Promise<T>): Promise<T> {
    step = name
    try {
      return await work()
    } finally {
      step = ''
    }
  }

  /** Sends a request as a step of the journey and answers its JSON, failing on a non-2xx. */
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    json?: unknown,
    token = t.demo.adminToken,
  ): Promise<T> {
    return as(`${method} ${path}`, async () => {
      const response = await t.request(path, {
        method,
        token,
        ...(json === undefined ? {} : { json }),
      })
      const text = await response.text()
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
      await t.deliver()
      const isJson = response.headers.get('Content-Type')?.includes('json')
      return (isJson && text ? JSON.parse(text) : {}) as T
    })
  }

  it('walks the portal', async () => {
    const practice = t.demo.practiceId
    const key = (() => {
      let n = 0
      return () => `tenancy-${n++}`
    })()
    await call('POST', '/api/auth/local', {
      identifier: DEMO_ADMIN.email,
      password: DEMO_ADMIN.password,
    })
    await call('GET', '/api/practice')
    await call('GET', '/api/practice/rules')
    await call('GET', '/api/practice/subscription')
    await call('GET', '/api/users-permissions/init')
    const list = await call<{ data: { id: number; points: number }[] }>(
      'GET',
      '/api/patients?page=1&pageSize=25',
    )
    await call('GET', '/api/patients?search=ja&page=1&pageSize=25')
    await call('GET', '/api/patients/summary')
    await call('GET', '/api/patients/duplicates')
    const rich = list.data.reduce((a, b) => (b.points > a.points ? b : a))
    const patientId = rich.id
    await call('GET', `/api/patients/${patientId}`)
    await call('GET', `/api/patients/${patientId}/ledger`)
    await call('GET', `/api/activities/patient/${patientId}`)
    const created = await call<{ id: number }>('POST', '/api/patients', {
      first_name: 'Tenny',
      last_name: 'Tenancy',
      email: 'tenny@example.com',
    })
    await call('PUT', `/api/patients/${created.id}`, {
      first_name: 'Tenny',
      last_name: 'Tenancy',
      email: 'tenny.t@example.com',
    })
    await call('POST', `/api/patients/${patientId}/adjustments`, {
      points: 25,
      reason: 'Tenancy check',
      idempotencyKey: key(),
    })
    const products = await call<{ id: number }[]>('GET', `/api/products?practice=${practice}`)
    await call('GET', `/api/procedures?practice=${practice}`)
    const product = products[0]
    if (!product) throw new Error('the demo practice has no product')
    const visit = await call<{ visit: { id: number } }>('POST', '/api/visits', {
      patient_id: patientId,
      items: [{ product_id: product.id, quantity: 1 }],
      idempotencyKey: key(),
    })
    await call('GET', `/api/visits/${visit.visit.id}`)
    await call('POST', `/api/visits/${visit.visit.id}/undo`)
    await call('POST', `/api/patients/${patientId}/redemptions`, {
      points: 10,
      override: { reason: 'Tenancy check' },
      idempotencyKey: key(),
    })
    const appointment = await call<{ id: number }>('POST', '/api/appointments', {
      patient_id: patientId,
      starts_at: new Date(Date.now() + 86_400_000).toISOString(),
    })
    const day = (offset: number) =>
      new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
    await call('GET', `/api/appointments?from=${day(0)}&to=${day(7)}`)
    await call('GET', `/api/appointments/${appointment.id}`)
    await call('POST', `/api/appointments/${appointment.id}/cancel`)
    const start = new Date(Date.now() - 3_600_000)
    const promotion = await call<{ id: number }>('POST', '/api/promotions', {
      title: 'Tenancy Glow',
      bonus_points: 20,
      starts_at: start.toISOString(),
      ends_at: new Date(start.getTime() + 30 * 86_400_000).toISOString(),
    })
    await call('POST', `/api/promotions/${promotion.id}/publish`)
    await call('GET', '/api/promotions')
    await call('GET', `/api/promotions/${promotion.id}`)
    await call('POST', `/api/promotions/${promotion.id}/send`)
    const [sent] = await t.db
      .select({ link: outbox.link })
      .from(outbox)
      .where(sql`${outbox.link} like '%/offers/%'`)
      .limit(1)
    const token = sent?.link?.split('/').pop()
    if (!token) throw new Error('no offer link was sent')
    await call('GET', `/api/offers/${token}`, undefined, '')
    await call('POST', `/api/offers/${token}/claim`, {}, '')
    await call('GET', '/api/users')
    await call('GET', `/api/users/${t.demo.admin.id}`)
    await call('GET', '/api/personnel')
    await call('POST', '/api/personnel', {
      email: 'tenancy.invitee@example.com',
      first_name: 'Ina',
      last_name: 'Vite',
      position: 'Provider',
    })
    // A redemption with the patient's texted code.
    const texted = await call<{ authyId: string }>(
      'POST',
      `/api/patients/${patientId}/redemption-code`,
      { points: 10 },
    )
    const [sms] = await t.db
      .select({ code: outbox.code })
      .from(outbox)
      .where(sql`${outbox.channel} = 'sms'`)
      .orderBy(sql`${outbox.id} desc`)
      .limit(1)
    if (!sms?.code) throw new Error('no redemption code was texted')
    const verification = { authyId: texted.authyId, code: sms.code }
    await call('POST', `/api/patients/${patientId}/redemption-code/check`, {
      ...verification,
      points: 10,
    })
    await call('POST', `/api/patients/${patientId}/redemptions`, {
      points: 10,
      verification,
      idempotencyKey: key(),
    })
    // An adjustment undone from the ledger.
    const adjusted = await call<{ entry: { id: number } }>(
      'POST',
      `/api/patients/${patientId}/adjustments`,
      { points: 5, reason: 'Tenancy check', idempotencyKey: key() },
    )
    await call('POST', `/api/ledger/${adjusted.entry.id}/reverse`, { reason: 'by mistake' })
    // An import, then a merge of the imported patient into another.
    const fileId = createHash('sha256').update('tenancy-import').digest('hex')
    const rows = [2].map((row) => ({
      row,
      first_name: 'Imre',
      last_name: 'Tenant',
      email: 'imre.tenant@import.example',
      phone: null,
      birth_date: '1985-03-15',
      email_subscription: 'yes',
      sms_subscription: 'no',
    }))
    await call('POST', '/api/patients/import/preview', { file_id: fileId, rows })
    await call('POST', '/api/patients/import', { file_id: fileId, rows })
    const twin = await call<{ id: number }>('POST', '/api/patients', {
      first_name: 'Imre',
      last_name: 'Tenant',
      email: 'imre.twin@import.example',
    })
    const [imported] = await t.db
      .select({ id: patients.id })
      .from(patients)
      .where(sql`${patients.email} = 'imre.tenant@import.example' and ${patients.id} <> ${twin.id}`)
    if (!imported) throw new Error('the import created nobody')
    await call('GET', '/api/patients/duplicates')
    await call('GET', `/api/patients/${twin.id}/merge/${imported.id}`)
    await call('POST', `/api/patients/${twin.id}/merge/${imported.id}`, { idempotencyKey: key() })
    await call('POST', `/api/patients/${created.id}/archive`)
    await call('POST', `/api/patients/${created.id}/restore`)
    // The catalogue and the offers' life.
    const procedure = await call<{ id: number }>('POST', '/api/procedures', {
      name: 'Tenancy Peel',
      price: 5000,
    })
    await call('POST', `/api/procedures/${procedure.id}/archive`)
    await call('POST', `/api/procedures/${procedure.id}/restore`)
    const copy = await call<{ id: number }>('POST', `/api/promotions/${promotion.id}/duplicate`)
    await call('POST', `/api/promotions/${promotion.id}/end`)
    await call('POST', `/api/promotions/${copy.id}/archive`)
    // Staff: a role changed and back, a deactivation and back.
    await call('PUT', `/api/users/${t.demo.staff.id}/role`, { access_rights: 'Manager' })
    await call('PUT', `/api/users/${t.demo.staff.id}/role`, { access_rights: 'Staff' })
    await call('POST', `/api/users/${t.demo.staff.id}/deactivate`)
    await call('POST', `/api/users/${t.demo.staff.id}/reactivate`)
    await call('GET', '/api/reports/patients.csv')
    await call('GET', '/api/reports/ledger.csv')
    await call('GET', '/api/audit/export.csv')
    await call('GET', '/api/reports/summary')
    await call('GET', '/api/reports/worklist?list=expiring')
    await call('GET', `/api/reports/liability?from=${new Date().getUTCFullYear()}-01-01`)
    await call('GET', '/api/audit')
    await call('POST', '/api/auth/forgot-password', {
      email: DEMO_ADMIN.email,
      url: 'http://localhost:3000/reset',
    })
    const [patient] = await t.db
      .select({ unsubscribe_id: patients.unsubscribe_id })
      .from(patients)
      .where(sql`${patients.id} = ${created.id}`)
    await call(
      'PUT',
      `/api/patients/unsubscribe/${patient?.unsubscribe_id}`,
      { email_subscription: false },
      '',
    )
    // The other practice's Admin reads their own patients: their filter names their practice.
    await call('GET', '/api/patients?page=1&pageSize=25', undefined, other.token)
    await call('GET', `/api/patients/${other.patientId}`, undefined, other.token)
    // The daily expiry job, across practices.
    await as('expiry job', async () => {
      const job = createExpiryJob({
        db: t.db,
        outbound: { enqueue: (tx, message) => enqueueMessage(tx, message, new Date()), kick() {} },
        publicUrl: t.config.publicUrl,
        now: () => new Date(),
        log: t.log,
      })
      await job.run()
    })

    const touched = log.filter((entry) => tablesOf(entry.query).length > 0)
    expect(touched.length).toBeGreaterThan(100)
    expect(breaches(log), RULE).toEqual([])
  })
})
