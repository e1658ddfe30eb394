/**
 * The Nextech sync at a practice's size (`npm run bench -- --only=nextech`): a first sync of
 * 10,000 patients, 20,000 appointments and 50,000 bills from the sandbox, at its 20 requests a
 * second per endpoint (the real limit, on the real clock, with the sync's own token buckets), then
 * an incremental sync after 100 changes. Through the real API ("Sync now", then the run followed)
 * on PGlite, or on PostgreSQL with BENCH_DATABASE_URL. The floor is what the rate limit alone
 * allows: each endpoint's pages ÷ 20 a second, the endpoints read one after another (patients
 * first, then appointments and bills side by side, so their floor is the larger of the two).
 */
import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { NextechRun } from '#domain/nextech.ts'
import { ledgerEntries } from '#server/db/schema.ts'
import { createNextechClient } from '#server/nextech/client.ts'
import { createNextechSandbox, generateSandboxRecords } from '#server/nextech/sandbox.ts'
import {
  createMember,
  createTestApp,
  insertSandboxNextechPractice,
  pgliteBackendWith,
  postgresBackend,
} from '#server/testing/test-app.ts'

export type NextechBenchRun = {
  label: string
  seconds: number
  /** Requests per endpoint, 429s and retries included. */
  requests: Record<string, number>
  /** Pages the rate limit must allow: per endpoint, records ÷ 50 (at least 1). */
  floorSeconds: number
  pointsAwarded: number
  pointsReversed: number
  entries: number
}

export type NextechBench = {
  database: string
  records: { patients: number; appointments: number; bills: number }
  runs: NextechBenchRun[]
  /** Entries in the ledger after the first sync and after the replay of the same window. */
  replay: { before: number; after: number }
}

const PAGE = 50
const PER_SECOND = 20

export async function benchNextech(
  counts = { patients: 10_000, appointments: 20_000, bills: 50_000 },
): Promise<NextechBench> {
  const databaseUrl = process.env.BENCH_DATABASE_URL
  const backend = databaseUrl ? postgresBackend(databaseUrl) : pgliteBackendWith()
  const dataKey = randomBytes(32)
  const t = await createTestApp(backend, { dataKey })
  try {
    const records = generateSandboxRecords({ ...counts, seed: 7 })
    const sandbox = createNextechSandbox({ now: () => new Date(), ...records })
    const base = 'http://bench.nextech/nextech-sandbox'
    const app = t.makeApp(
      {},
      {
        nextech: {
          client: createNextechClient({
            tokenUrl: `${base}/nextech-api.com/oauth2/token`,
            apiUrl: `${base}/api`,
            fetch: sandbox.fetch,
          }),
          mode: 'sandbox',
          sandbox,
        },
      },
    )
    const practiceId = await insertSandboxNextechPractice(t.db, dataKey, 'Nextech Bench')
    const admin = await createMember(t.db, practiceId, 'Admin')
    const call = async (path: string, method = 'GET') => {
      const response = await t.requestOn(app, `/api/practice/integrations/nextech${path}`, {
        method,
        token: admin.token,
      })
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`)
      return response.json()
    }
    await call('/test', 'POST')
    // Every generated bill earns (they are dated in the past year): the backfill from the start.
    await t.db.execute(
      sql`update nextech_connections set award_from = '2000-01-01' where practice_id = ${practiceId}`,
    )
    const entries = async () => {
      const [row] = await t.db
        .select({ n: sql<number>`count(*)::int` })
        .from(ledgerEntries)
        .where(eq(ledgerEntries.practice_id, practiceId))
      return Number(row?.n)
    }
    const sync = async (label: string, floorSeconds: number): Promise<NextechBenchRun> => {
      const started = performance.now()
      const { run_id } = (await call('/sync', 'POST')) as { run_id: number }
      let run: NextechRun
      for (;;) {
        run = (await call(`/runs/${run_id}`)) as NextechRun
        if (run.status !== 'running') break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      if (run.status !== 'done') throw new Error(`${label}: the sync failed: ${run.error}`)
      return {
        label,
        seconds: (performance.now() - started) / 1000,
        requests: run.requests,
        floorSeconds,
        pointsAwarded: run.counts.points_awarded,
        pointsReversed: run.counts.points_reversed,
        entries: await entries(),
      }
    }
    const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE))
    const firstFloor =
      pages(counts.patients) / PER_SECOND +
      Math.max(pages(counts.appointments), pages(counts.bills)) / PER_SECOND
    const first = await sync('first sync', firstFloor)

    // Everything read again from nothing (the watermarks dropped): nothing is posted twice.
    const before = await entries()
    await t.db.execute(
      sql`update nextech_connections set watermarks = '{}'::jsonb where practice_id = ${practiceId}`,
    )
    const replay = await sync('full re-read (watermarks dropped)', firstFloor)
    const after = await entries()
    // 100 changes: 40 new bills, 20 bills voided, 10 corrected, 10 lines voided, 20 patients edited.
    const store = sandbox.store
    const people = store.patients().slice(0, 40)
    const bills = store
      .claims()
      .filter(
        (claim) =>
          claim.use === 'complete' &&
          claim.status === 'active' &&
          claim.items.every((item) => !item.voided),
      )
    for (const [index, person] of people.entries()) {
      store.addBill({
        patientId: person.id,
        items: [{ code: 'HYDRA', text: 'HydraFacial', unitPrice: 150 + index }],
      })
    }
    for (const bill of bills.slice(0, 20)) store.voidBill(bill.id)
    for (const bill of bills.slice(20, 30)) {
      store.correctBill(
        bill.id,
        bill.items.map((item) => ({
          code: item.code,
          text: item.text,
          quantity: item.quantity,
          unitPrice: item.unitPrice + 10,
        })),
      )
    }
    for (const bill of bills.slice(30, 40)) store.voidLine(bill.id, 1)
    for (const person of store.patients().slice(100, 120)) {
      store.updatePatient(person.id, { phone: '(512) 555-0199' })
    }
    const incremental = await sync('incremental sync after 100 changes', 3 / PER_SECOND)
    return {
      database: databaseUrl ? 'PostgreSQL' : 'PGlite',
      records: counts,
      runs: [first, replay, incremental],
      replay: { before, after },
    }
  } finally {
    await t.close()
  }
}

/** The bench's table rows. */
export function formatNextechTable(bench: NextechBench): string {
  const lines = [
    `Nextech sync on ${bench.database}: ${bench.records.patients.toLocaleString('en-US')} patients, ${bench.records.appointments.toLocaleString('en-US')} appointments, ${bench.records.bills.toLocaleString('en-US')} bills`,
    '| Run | Time | Floor (pages ÷ 20/s) | × floor | Requests (token, Patient, Appointment, Claim) | Points awarded | Reversed | Points posted /s |',
    '|---|---|---|---|---|---|---|---|',
  ]
  for (const run of bench.runs) {
    const r = run.requests
    lines.push(
      `| ${run.label} | ${run.seconds.toFixed(1)} s | ${run.floorSeconds.toFixed(1)} s | ${(run.seconds / run.floorSeconds).toFixed(2)} | ${r.token ?? 0}, ${r.Patient ?? 0}, ${r.Appointment ?? 0}, ${r.Claim ?? 0} | ${run.pointsAwarded.toLocaleString('en-US')} | ${run.pointsReversed.toLocaleString('en-US')} | ${Math.round(run.pointsAwarded / run.seconds).toLocaleString('en-US')} |`,
    )
  }
  lines.push(
    `Ledger entries before and after the full re-read: ${bench.replay.before.toLocaleString('en-US')} and ${bench.replay.after.toLocaleString('en-US')} (posted twice: ${bench.replay.after - bench.replay.before}).`,
  )
  return lines.join('\n')
}
