/**
 * The portal at scale (`npm run bench -- --only=scale`): a practice of 100 and one of 10,000
 * patients with 20 ledger entries each (200,000 at 10,000; scripts/bench/scale-seed.ts writes
 * them in bulk, as the ledger service would have), every patient a member of a plan with up to 15
 * months of billing history (scripts/bench/scale-members.ts), and the server time of the
 * portal's everyday requests at both sizes, a member's checkout and the memberships report
 * included, on PGlite (a fresh temporary DATA_DIR) and on PostgreSQL when
 * `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` is set (a database of its own next to that one,
 * dropped at the end: server/testing/test-app.ts `postgresBackend`).
 *
 * The two practices live side by side in one database, as tenants do. The real app runs
 * in-process (`createTestApp`). Each operation is sent 20 times through `t.request`, which holds
 * every answer to the OpenAPI document, then timed 200 times through `t.app.request` (the same app
 * and headers, without that check), in 5 rounds in which the two practices take turns: the figure
 * is the app's own time from request to the answer's last byte, with no network. Requests carry the Admin's bearer token
 * and no XSRF cookie, as an API client's do. Each request picks another patient, spread over the
 * whole practice.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { serve } from '@hono/node-server'
import { sql } from 'drizzle-orm'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumPath } from '#scripts/lib/chromium.ts'
import { type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { seedIfEmpty } from '#server/demo/seed.ts'
import { TEST_SEED } from '#server/testing/db-templates.ts'
import {
  createTestApp,
  postgresBackend,
  type TestApp,
  type TestBackend,
} from '#server/testing/test-app.ts'
import { removeDir, tempDataDir } from './processes.ts'
import { enrolMembers, type ScaleMembers } from './scale-members.ts'
import {
  createScalePractice,
  firstNameOf,
  growPractice,
  lastNameOf,
  phoneOf,
  rowsOf,
  type ScalePractice,
} from './scale-seed.ts'
import { percentile } from './stats.ts'

/** The timings of one operation at one size. */
export type ScaleOperation = {
  label: string
  p50Ms: number
  p95Ms: number
  /** The median of each round (the sizes take turns round by round), when timed in rounds. */
  roundP50Ms?: number[]
  /** Answers counted by HTTP status (`ok` for a call of the service that did not throw). */
  statusCounts: Record<string, number>
  /**
   * Why the scale budget does not apply to this row (shown under the table), for a cost paid once
   * a day or once a practice rather than by every call: such a row is measured, not judged.
   */
  unbudgeted?: string
}

/** Everything measured at one size of the practice. */
export type ScaleSize = {
  patients: number
  /** Ledger entries of the practice when the timings began. */
  ledgerEntries: number
  /** Memberships of the practice (every patient a member: scripts/bench/scale-members.ts). */
  members?: number
  /** Time to grow the practice to this size (bulk insert, check, ANALYZE), members included. */
  seedMs: number
  operations: ScaleOperation[]
  /** Bytes of `GET /api/patients?pageSize=25` as sent without compression, and gzipped. */
  pageBytes: number
  pageGzipBytes: number
}

/** One database's run. */
export type ScaleRun = { database: string; sizes: ScaleSize[] }

/** What the scale part measured. */
export type ScaleBench = {
  requests: number
  warmUp: number
  /** Rounds in which the sizes took turns. */
  rounds?: number
  runs: ScaleRun[]
}

/** The practice sizes, smallest first: the budget compares the last with the first. */
export const SCALE_SIZES = [100, 10_000] as const

/** A database the part runs on, with the name the table gives it. */
export type ScaleDatabase = { label: string; backend: TestBackend }

/** PGlite in a new temporary DATA_DIR, removed on close. */
function pgliteOnDisk(): TestBackend {
  return {
    name: 'pglite',
    async open({ seeded } = {}): Promise<DatabaseHandle> {
      const dataDir = tempDataDir('scale')
      try {
        const handle = await openDatabase({ dataDir })
        // createTestApp asks for the demo practice: seeded as the test backends seed theirs.
        if (seeded) await seedIfEmpty(handle.db, TEST_SEED)
        return {
          ...handle,
          async close() {
            await handle.close()
            removeDir(dataDir)
          },
        }
      } catch (error) {
        removeDir(dataDir)
        throw error
      }
    },
  }
}

/** PGlite always; PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server. */
export function scaleDatabases(env: NodeJS.ProcessEnv = process.env): ScaleDatabase[] {
  const url = (env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL)?.trim()
  const databases: ScaleDatabase[] = [{ label: 'PGlite', backend: pgliteOnDisk() }]
  if (url) databases.push({ label: 'PostgreSQL', backend: postgresBackend(url) })
  return databases
}

/** One request or service call of an operation: answers its status, the body read. */
type Call = (i: number) => Promise<string>

/**
 * One operation of the portal on one practice: `warm` checks its answers, `call` is timed, and
 * `after` (not timed) puts back what a timed call changed, before the next one. `requests` and
 * `warmUp`, when given, replace the bench's counts for this operation (one whose call takes
 * seconds at scale), the same at every size.
 */
type OperationPlan = {
  label: string
  /** {@link ScaleOperation.unbudgeted}. */
  unbudgeted?: string
  warm: Call
  call: Call
  after?: () => Promise<void>
  requests?: number
  warmUp?: number
}

/** The timings of one operation on one practice, gathered round by round. */
type Gathered = { durations: number[]; rounds: number[]; statusCounts: Record<string, number> }

/**
 * Times every operation on every practice, the practices taking turns: for each operation, its
 * `warmUp` checked calls on each practice, then `rounds` rounds in which each practice gets its
 * share of the `requests` timed calls. A slower minute of a shared machine then falls on both
 * sizes alike instead of on whichever was being timed, which is what made two runs disagree by 2×.
 */
async function timeInTurns(
  plans: OperationPlan[][],
  counts: { requests: number; warmUp: number; rounds: number },
): Promise<ScaleOperation[][]> {
  const { rounds } = counts
  const gathered: Gathered[][] = plans.map((ops) =>
    ops.map(() => ({ durations: [], rounds: [], statusCounts: {} })),
  )
  const count = plans[0]?.length ?? 0
  for (let op = 0; op < count; op++) {
    const first = plans[0]?.[op]
    const warmUp = Math.min(first?.warmUp ?? counts.warmUp, counts.warmUp)
    const requests = Math.min(first?.requests ?? counts.requests, counts.requests)
    const perRound = Math.max(1, Math.ceil(requests / rounds))
    for (const ops of plans) {
      const plan = ops[op] as OperationPlan
      for (let i = 0; i < warmUp; i++) await plan.warm(i)
    }
    for (let round = 0; round < rounds; round++) {
      for (const [size, ops] of plans.entries()) {
        const plan = ops[op] as OperationPlan
        const into = gathered[size]?.[op] as Gathered
        const durations: number[] = []
        for (let k = 0; k < perRound; k++) {
          const started = performance.now()
          const status = await plan.call(warmUp + round * perRound + k)
          durations.push(performance.now() - started)
          into.statusCounts[status] = (into.statusCounts[status] ?? 0) + 1
          await plan.after?.()
        }
        into.durations.push(...durations)
        into.rounds.push(percentile(durations, 50))
      }
    }
  }
  return plans.map((ops, size) =>
    ops.map((plan, op) => {
      const {
        durations,
        rounds: medians,
        statusCounts,
      } = (gathered[size] as Gathered[])[op] as Gathered
      return {
        label: plan.label,
        p50Ms: percentile(durations, 50),
        p95Ms: percentile(durations, 95),
        roundP50Ms: medians,
        statusCounts,
        ...(plan.unbudgeted ? { unbudgeted: plan.unbudgeted } : {}),
      }
    }),
  )
}

type Request = { method?: string; json?: unknown }

/** The Admin's request, sent through `t.request` (checked against the OpenAPI document) or not. */
async function send(
  t: TestApp,
  token: string,
  path: string,
  { method = 'GET', json }: Request = {},
  checked = false,
): Promise<{ status: number; body: Buffer }> {
  const response = checked
    ? await t.request(path, { method, token, json })
    : await t.app.request(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: json === undefined ? undefined : JSON.stringify(json),
      })
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) }
}

/** An operation of one or more requests per call; the call's status is its first non-2xx one. */
function http(t: TestApp, token: string, requests: (i: number) => [string, Request?][]) {
  const run = (checked: boolean) => async (i: number) => {
    const statuses: number[] = []
    for (const [path, init] of requests(i)) {
      statuses.push((await send(t, token, path, init, checked)).status)
    }
    return String(statuses.find((status) => status >= 300) ?? statuses.at(-1))
  }
  return { warm: run(true), call: run(false) }
}

/** Ids of the practice's patients other than the template, by id. */
async function patientIds(t: TestApp, practice: ScalePractice): Promise<number[]> {
  const rows = await rowsOf<{ id: number }>(
    t.db,
    sql`select id from patients where practice_id = ${practice.practiceId}::int
          and id <> ${practice.templatePatientId}::int order by id`,
  )
  return rows.map((row) => Number(row.id))
}

/** The `i`th request's patient: a step of a large prime through the list, so spread and varied. */
const pick = <T>(list: readonly T[], i: number): T => list[(i * 7919) % list.length] as T

/** The practice's figures other than timings: its size, its ledger, the answer of a page. */
type Sized = Omit<ScaleSize, 'seedMs' | 'operations'>

/** The bank paid at each member checkout, on an Admin's override (a cycle banks $100). */
const MEMBER_BANK_CENTS = 5_000

/**
 * A member at the desk: the preview, then the visit, of a HydraFacial the allowance covers and a
 * peel at the member price, $50.00 of it paid from the bank on the Admin's override (a new
 * idempotency key each time), for another active member each call. `after` undoes the visit (not
 * timed), which puts the allowance and the bank back: every call finds the same perks. The
 * checked calls also hold the answers to the perks (allowance, member price, bank).
 */
function memberCheckout(
  t: TestApp,
  token: string,
  members: ScaleMembers,
  idempotencyKey: () => string,
): { warm: Call; call: Call; after: () => Promise<void> } {
  const items = [
    { procedure_id: members.hydraFacialId, quantity: 1 },
    { procedure_id: members.peelId, quantity: 1 },
  ]
  let recorded: number | undefined
  const undo = async (checked: boolean) => {
    if (recorded === undefined) return
    const id = recorded
    recorded = undefined
    const undone = await send(t, token, `/api/visits/${id}/undo`, { method: 'POST' }, checked)
    if (undone.status !== 201)
      throw new Error(`POST /api/visits/${id}/undo answered ${undone.status}`)
  }
  const run = (checked: boolean) => async (i: number) => {
    const patient_id = pick(members.activePatientIds, i)
    const preview = await send(
      t,
      token,
      '/api/visits/preview',
      { method: 'POST', json: { patient_id, items } },
      checked,
    )
    const visit = await send(
      t,
      token,
      '/api/visits',
      {
        method: 'POST',
        json: {
          patient_id,
          items,
          idempotencyKey: idempotencyKey(),
          redemption: { bank_cents: MEMBER_BANK_CENTS, override: { reason: 'Bench' } },
        },
      },
      checked,
    )
    if (visit.status === 201) {
      recorded = (JSON.parse(visit.body.toString()) as { visit: { id: number } }).visit.id
    }
    if (checked) {
      const shown = JSON.parse(preview.body.toString()) as {
        membership?: {
          perks_apply: boolean
          allowance_cents: number
          member_discount_cents: number
        }
      }
      const paid = JSON.parse(visit.body.toString()) as { visit?: { bank_cents: number } }
      const m = shown.membership
      if (!m?.perks_apply || m.allowance_cents <= 0 || m.member_discount_cents <= 0) {
        throw new Error(`The member checkout's preview shows no perks: ${preview.body.toString()}`)
      }
      if (paid.visit?.bank_cents !== MEMBER_BANK_CENTS) {
        throw new Error(`The member checkout was not paid from the bank: ${visit.body.toString()}`)
      }
      await undo(true)
    }
    return String([preview.status, visit.status].find((status) => status >= 300) ?? visit.status)
  }
  return { warm: run(true), call: run(false), after: () => undo(false) }
}

/** Timed calls of the memberships report (each takes seconds at 10,000 members). */
const REPORT_REQUESTS = 10
/** Timed calls of the report whose closed months are worked out again (each one all of them). */
const REPORT_COLD_REQUESTS = 4

/** `YYYY-MM-DD` of `days` days before today (UTC). */
const dayBefore = (days: number) =>
  new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)

/** The portal's everyday operations on one practice, each as a plan to time. */
async function operationsOf(
  t: TestApp,
  practice: ScalePractice,
  members: ScaleMembers,
): Promise<{ plans: OperationPlan[]; sized: Sized }> {
  const ids = await patientIds(t, practice)
  const [entries] = await rowsOf<{ n: number }>(
    t.db,
    sql`select count(*)::int as n from ledger_entries where practice_id = ${practice.practiceId}::int`,
  )
  const token = practice.adminToken
  let key = 0
  const idempotencyKey = () => `bench-scale-${practice.practiceId}-${Date.now()}-${key++}`
  const size = practice.patients
  const plans: OperationPlan[] = []
  const run = (label: string, calls: Omit<OperationPlan, 'label'>) => {
    plans.push({ label, ...calls })
  }

  run(
    'Patient search, part of a last name',
    http(t, token, (i) => [
      [`/api/patients?search=${lastNameOf(i).slice(1, 5)}&page=1&pageSize=25`],
    ]),
  )
  run(
    'Patient search, 4 digits of a phone',
    http(t, token, (i) => [
      [`/api/patients?search=${phoneOf(1 + ((i * 7919) % size)).slice(-5, -1)}&page=1&pageSize=25`],
    ]),
  )
  run(
    'Patient search, start of a last name',
    http(t, token, (i) => [
      [`/api/patients?search=${lastNameOf(i).slice(0, 4)}&page=1&pageSize=25`],
    ]),
  )
  run(
    'Patient search, starts of last and first name',
    http(t, token, (i) => [
      [
        `/api/patients?search=${encodeURIComponent(`${lastNameOf(i).slice(0, 3)} ${firstNameOf(i).slice(0, 2)}`)}&page=1&pageSize=25`,
      ],
    ]),
  )
  run(
    'Patient search, a whole phone as written',
    http(t, token, (i) => {
      const digits = phoneOf(1 + ((i * 7919) % size))
      const written = `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`
      return [[`/api/patients?search=${encodeURIComponent(written)}&page=1&pageSize=25`]]
    }),
  )
  run(
    'Patient list, first page by name',
    http(t, token, () => [['/api/patients?page=1&pageSize=25']]),
  )
  run(
    'Profile + first ledger page (2 requests)',
    http(t, token, (i) => {
      const id = pick(ids, i)
      return [[`/api/patients/${id}`], [`/api/patients/${id}/ledger`]]
    }),
  )
  run(
    'Adjustment +5 (POST adjustments)',
    http(t, token, (i) => [
      [
        `/api/patients/${pick(ids, i)}/adjustments`,
        { method: 'POST', json: { points: 5, reason: 'Bench', idempotencyKey: idempotencyKey() } },
      ],
    ]),
  )
  run(
    'Adjustment −3, a debit over HTTP (POST adjustments)',
    http(t, token, (i) => [
      [
        `/api/patients/${pick(ids, i + 1)}/adjustments`,
        { method: 'POST', json: { points: -3, reason: 'Bench', idempotencyKey: idempotencyKey() } },
      ],
    ]),
  )
  run(
    "Redemption −2 (POST redemptions, an Admin's override)",
    http(t, token, (i) => [
      [
        `/api/patients/${pick(ids, i + 2)}/redemptions`,
        {
          method: 'POST',
          json: { points: 2, override: { reason: 'Bench' }, idempotencyKey: idempotencyKey() },
        },
      ],
    ]),
  )

  // The dashboard: its aggregates, computed in the database.
  run(
    'Dashboard summary (GET /reports/summary)',
    http(t, token, () => [['/api/reports/summary']]),
  )
  run(
    'Worklist, first page of its 4 lists (4 requests)',
    http(t, token, () =>
      ['expiring', 'lapsing', 'offers-ending', 'appointments'].map((list) => [
        `/api/reports/worklist?list=${list}`,
      ]),
    ),
  )
  run(
    'Liability report, this year (GET /reports/liability)',
    http(t, token, () => [[`/api/reports/liability?from=${new Date().getUTCFullYear()}-01-01`]]),
  )

  // Members: every patient is one (scripts/bench/scale-members.ts).
  run(
    'Member checkout: preview + visit, allowance, member price, bank (2 requests)',
    memberCheckout(t, token, members, idempotencyKey),
  )
  // Seconds a call at 10,000 members: fewer calls, so that the part ends within the hour.
  run(`Memberships report, a year (GET /reports/memberships; ${REPORT_REQUESTS} calls)`, {
    ...http(t, token, () => [
      [`/api/reports/memberships?from=${dayBefore(364)}&to=${dayBefore(0)}`],
    ]),
    requests: REPORT_REQUESTS,
    warmUp: 2,
  })
  // The first report of a day works out the stretches that closed since (its stored windows are
  // a day old; server/modules/reports/membership-report.ts), and the first report ever, or after
  // the stored months were thrown away, works out the closed months too: here all 15. Each call
  // below comes after the stored parts are removed. Both read the period's changes, which grow
  // with the members, once; every later call of the day is the row above.
  const report = http(t, token, () => [
    [`/api/reports/memberships?from=${dayBefore(364)}&to=${dayBefore(0)}`],
  ])
  const unstoreWindows = () =>
    t.db.execute(
      sql`delete from membership_report_windows where practice_id = ${practice.practiceId}::int`,
    )
  const unstore = async () => {
    await t.db.execute(
      sql`delete from membership_report_months where practice_id = ${practice.practiceId}::int`,
    )
    await unstoreWindows()
  }
  const coldly = (remove: () => Promise<unknown>) => ({
    warm: async (i: number) => {
      const status = await report.warm(i)
      await remove()
      return status
    },
    call: report.call,
    after: async () => {
      await remove()
    },
    requests: REPORT_COLD_REQUESTS,
    warmUp: 1,
  })
  run(
    `Memberships report, a year, the first of a day: its closed stretches not stored yet (${REPORT_COLD_REQUESTS} calls)`,
    {
      ...coldly(unstoreWindows),
      unbudgeted: 'the first memberships report of a day, once a day per period asked for',
    },
  )
  run(
    `Memberships report, a year, its closed months not stored yet (${REPORT_COLD_REQUESTS} calls)`,
    {
      ...coldly(unstore),
      unbudgeted:
        "a practice's first memberships report (or the first after its stored months are thrown away)",
    },
  )

  const page = await send(t, token, '/api/patients?pageSize=25', {}, true)
  if (page.status !== 200) throw new Error(`GET /api/patients answered ${page.status}`)
  return {
    plans,
    sized: {
      patients: size,
      ledgerEntries: Number(entries?.n ?? 0),
      members: members.members,
      pageBytes: page.body.byteLength,
      pageGzipBytes: gzipSync(page.body).byteLength,
    },
  }
}

/** Page loads of the dashboard timed in Chromium at each size. */
const DASHBOARD_LOADS = 7

const DASHBOARD_LABEL = 'Dashboard in Chromium: numbers shown after sign-in (page load)'

/**
 * The dashboard in Chromium, signed in as the practice's Admin: the built SPA and the API served
 * over HTTP by the same in-process app, the session stored as sign-in stores it, then the time from
 * navigating to /dashboard until the tiles show their numbers (the points outstanding). Needs
 * `dist/` (npm run build) and Chromium; answers undefined without them.
 */
async function dashboardInBrowser(
  t: TestApp,
  practice: ScalePractice,
): Promise<ScaleOperation | undefined> {
  const distDir = join(process.cwd(), 'dist')
  if (!existsSync(join(distDir, 'index.html'))) return undefined
  const app = t.makeApp({ distDir })
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const baseUrl = `http://127.0.0.1:${port}`
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS })
  try {
    const [user] = await rowsOf<Record<string, unknown>>(
      t.db,
      sql`select id, email, first_name, last_name, image_path, access_rights, practice_id
          from users where id = ${practice.admin.id}::int`,
    )
    const [office] = await rowsOf<Record<string, unknown>>(
      t.db,
      sql`select id, practice_name, image_path from practices where id = ${practice.practiceId}::int`,
    )
    const session = { jwt: practice.adminToken, user, practice: office }
    const page = await browser.newPage()
    await page.goto(`${baseUrl}/404`)
    await page.evaluate((value) => {
      window.sessionStorage.setItem('currentUser', JSON.stringify(value))
    }, session)
    const durations: number[] = []
    const statusCounts: Record<string, number> = {}
    for (let i = 0; i < DASHBOARD_LOADS + 1; i++) {
      await page.goto(`${baseUrl}/404`)
      const started = performance.now()
      await page.goto(`${baseUrl}/dashboard`)
      await page.locator('[data-figure="points-outstanding"]').waitFor({ timeout: 60_000 })
      // The first load warms the caches; it is not counted.
      if (i > 0) durations.push(performance.now() - started)
      statusCounts.shown = (statusCounts.shown ?? 0) + (i > 0 ? 1 : 0)
    }
    return {
      label: DASHBOARD_LABEL,
      p50Ms: percentile(durations, 50),
      p95Ms: percentile(durations, 95),
      statusCounts,
    }
  } finally {
    await browser.close()
    server.close()
  }
}

/** Rounds in which the sizes take turns (see {@link timeInTurns}). */
export const SCALE_ROUNDS = 5

/**
 * Runs the part on one database: builds the app on a fresh one, seeds one practice at each of
 * {@link SCALE_SIZES} side by side, and times the operations on all of them in turns. The
 * database is removed at the end.
 */
export async function benchScale(
  database: ScaleDatabase,
  { requests = 200, warmUp = 20, rounds = SCALE_ROUNDS } = {},
): Promise<ScaleRun> {
  const t = await createTestApp(database.backend)
  try {
    const grown: { practice: ScalePractice; members: ScaleMembers; seedMs: number }[] = []
    for (const size of SCALE_SIZES) {
      const practice = await createScalePractice(t.db)
      const started = performance.now()
      await growPractice(t.db, practice, size)
      const members = await enrolMembers(t.db, practice)
      grown.push({ practice, members, seedMs: performance.now() - started })
    }
    const planned = []
    for (const { practice, members } of grown) {
      planned.push(await operationsOf(t, practice, members))
    }
    const timings = await timeInTurns(
      planned.map((p) => p.plans),
      { requests, warmUp, rounds },
    )
    const sizes: ScaleSize[] = []
    for (const [index, { practice, seedMs }] of grown.entries()) {
      const operations = timings[index] ?? []
      // A page that never showed its numbers (a `dist/` rebuilt meanwhile, a timeout) is a failed
      // row of the table, not the loss of every timing above.
      const browserLoad = await dashboardInBrowser(t, practice).catch((error: unknown) => {
        console.error(`The dashboard in Chromium at ${practice.patients} patients: ${error}`)
        return {
          label: DASHBOARD_LABEL,
          p50Ms: Number.NaN,
          p95Ms: Number.NaN,
          statusCounts: { failed: 1 },
        }
      })
      if (browserLoad) operations.push(browserLoad)
      sizes.push({ ...(planned[index]?.sized as Sized), operations, seedMs })
    }
    return { database: database.label, sizes }
  } finally {
    await t.close()
  }
}
