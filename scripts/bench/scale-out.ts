/**
 * Several processes on one PostgreSQL (`npm run bench -- --only=scale-out`): the
 * portal's mixed load, a fixed number of requests at a fixed concurrency, sent round-robin to 1 and
 * then 2 real server processes (`server/index.ts`, server/testing/server-processes.ts) sharing one
 * fresh database on BENCH_DATABASE_URL or TEST_DATABASE_URL (default the local
 * postgres://postgres@127.0.0.1:5432/test) and the same JWT_SECRET and DATA_ENCRYPTION_KEY.
 *
 * The mix, per 10 requests: 1 sign-in, 3 patient searches, 3 patient profiles (the profile and
 * its first ledger page count as one each), 2 visits recorded (a product line, earning points) and
 * 1 redemption (an Admin's override of 1 point), all as the demo Admin with a bearer token, as an
 * API client sends them. Each process count gets a database of its own, so both start alike.
 *
 * On 2 cores the second process adds little throughput: the database and the client share them.
 * The point of the figure is the error column: 0 with 2 processes as with 1.
 */
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { startCluster } from '#server/testing/server-processes.ts'
import { percentile } from './stats.ts'

/** The figures of one process count. */
export type ScaleOutRun = {
  processes: number
  requests: number
  concurrency: number
  seconds: number
  requestsPerSecond: number
  p50Ms: number
  p95Ms: number
  /** Answers 500 and above. */
  serverErrors: number
  /** Other failures: an unexpected status (4xx) or a request that never got an answer. */
  otherFailures: number
  /** The kinds of request sent, with their counts. */
  mix: Record<string, number>
  /** The failures by kind and status (`visit 409`, `search no answer`). */
  failures: Record<string, number>
}

export type ScaleOutBench = { runs: ScaleOutRun[] }

type Kind = 'sign-in' | 'search' | 'profile' | 'visit' | 'redemption'

/** The kind of the `i`th request: 1 sign-in, 3 searches, 3 profiles, 2 visits, 1 redemption. */
const MIX: Kind[] = [
  'sign-in',
  'search',
  'profile',
  'visit',
  'search',
  'profile',
  'redemption',
  'search',
  'profile',
  'visit',
]

const SEARCHES = ['a', 'jo', 'smi', 'ma', 'le', 'son', 'ri', 'ch']

/**
 * The Admin's session, the patients, those with points enough for every redemption of a run, and
 * a product to sell.
 */
type Fixture = { token: string; patientIds: number[]; richIds: number[]; productId: number }

async function json<T>(response: Response, what: string): Promise<T> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** Signs the demo Admin in on `url` and reads the patients and a product to use. */
async function fixture(url: string): Promise<Fixture> {
  const signIn = await json<{ jwt: string; user: { practice_id: number } }>(
    await fetch(`${url}/api/auth/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password }),
    }),
    'sign-in',
  )
  const headers = { Authorization: `Bearer ${signIn.jwt}` }
  const list = await json<{ data: { id: number; points: number }[] }>(
    await fetch(`${url}/api/patients?page=1&pageSize=25`, { headers }),
    'patients',
  )
  const products = await json<{ id: number; archived_at?: string | null }[]>(
    await fetch(`${url}/api/products?practice=${signIn.user.practice_id}`, { headers }),
    'products',
  )
  const product = products.find((p) => !p.archived_at)
  if (!product) throw new Error('the demo practice has no product to sell')
  const patientIds = list.data.map((p) => p.id)
  if (patientIds.length === 0) throw new Error('the demo practice has no patients')
  const richIds = list.data.filter((p) => p.points >= 1000).map((p) => p.id)
  if (richIds.length === 0) throw new Error('no demo patient has 1,000 points to redeem')
  return { token: signIn.jwt, patientIds, richIds, productId: product.id }
}

/** The `i`th request of the mix, sent to `url`; answers whether its status was the expected one. */
async function send(url: string, i: number, f: Fixture, run: string): Promise<number> {
  const kind = MIX[i % MIX.length] as Kind
  const patient = f.patientIds[(i * 7) % f.patientIds.length] as number
  const auth = { Authorization: `Bearer ${f.token}` }
  const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  let response: Response
  switch (kind) {
    case 'sign-in':
      response = await post(
        '/api/auth/local',
        { identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password },
        {},
      )
      break
    case 'search':
      response = await fetch(
        `${url}/api/patients?search=${SEARCHES[i % SEARCHES.length]}&page=1&pageSize=25`,
        { headers: auth },
      )
      break
    case 'profile':
      response = await fetch(`${url}/api/patients/${patient}${i % 2 === 0 ? '' : '/ledger'}`, {
        headers: auth,
      })
      break
    case 'visit':
      response = await post('/api/visits', {
        patient_id: patient,
        items: [{ product_id: f.productId, quantity: 1 }],
        idempotencyKey: `scale-out-${run}-${i}`,
      })
      break
    case 'redemption':
      response = await post(`/api/patients/${f.richIds[i % f.richIds.length]}/redemptions`, {
        points: 1,
        override: { reason: 'Bench' },
        idempotencyKey: `scale-out-${run}-${i}`,
      })
      break
  }
  await response.arrayBuffer()
  return response.status
}

/**
 * Sends `requests` requests of the mix with `concurrency` in flight, the `i`th to
 * `urls[i % urls.length]`, and counts the answers.
 */
async function load(
  urls: string[],
  f: Fixture,
  { requests, concurrency, run }: { requests: number; concurrency: number; run: string },
) {
  const durations: number[] = []
  let serverErrors = 0
  let otherFailures = 0
  const mix: Record<string, number> = {}
  const failures: Record<string, number> = {}
  const fail = (what: string) => {
    failures[what] = (failures[what] ?? 0) + 1
  }
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < requests) {
      const i = next++
      const kind = MIX[i % MIX.length] as Kind
      mix[kind] = (mix[kind] ?? 0) + 1
      const begun = performance.now()
      try {
        const status = await send(urls[i % urls.length] as string, i, f, run)
        if (status >= 500) serverErrors++
        else if (status >= 300) otherFailures++
        if (status >= 300) fail(`${kind} ${status}`)
      } catch {
        otherFailures++
        fail(`${kind} no answer`)
      }
      durations.push(performance.now() - begun)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  return {
    seconds,
    requestsPerSecond: requests / seconds,
    p50Ms: percentile(durations, 50),
    p95Ms: percentile(durations, 95),
    serverErrors,
    otherFailures,
    mix,
    failures,
  }
}

/** Runs the mix against 1 and then 2 processes, each on a fresh database. */
export async function benchScaleOut({
  requests = 2000,
  concurrency = 16,
  processCounts = [1, 2],
}: {
  requests?: number
  concurrency?: number
  processCounts?: number[]
} = {}): Promise<ScaleOutBench> {
  const base =
    (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL)?.trim() ||
    'postgres://postgres@127.0.0.1:5432/test'
  const runs: ScaleOutRun[] = []
  const previous = process.env.TEST_DATABASE_URL
  process.env.TEST_DATABASE_URL = base
  try {
    for (const processes of processCounts) {
      const cluster = await startCluster({
        processes,
        label: 'scale_out',
      })
      try {
        const urls = cluster.servers.map((server) => server.url)
        const f = await fixture(urls[0] as string)
        // A short warm-up on every process (connections, caches), not counted.
        await load(urls, f, { requests: 20 * processes, concurrency: 4, run: `warm-${processes}` })
        const figures = await load(urls, f, { requests, concurrency, run: `run-${processes}` })
        runs.push({ processes, requests, concurrency, ...figures })
      } finally {
        await cluster.close()
      }
    }
  } finally {
    if (previous === undefined) delete process.env.TEST_DATABASE_URL
    else process.env.TEST_DATABASE_URL = previous
  }
  return { runs }
}

/** The runs side by side, one column per process count. */
export function formatScaleOutTable(bench: ScaleOutBench): string {
  const header = [
    '',
    ...bench.runs.map((r) => `${r.processes} process${r.processes > 1 ? 'es' : ''}`),
  ]
  const rows: string[][] = [
    header,
    ['requests (concurrency)', ...bench.runs.map((r) => `${r.requests} (${r.concurrency})`)],
    ['requests per second', ...bench.runs.map((r) => r.requestsPerSecond.toFixed(1))],
    ['p50', ...bench.runs.map((r) => `${r.p50Ms.toFixed(1)} ms`)],
    ['p95', ...bench.runs.map((r) => `${r.p95Ms.toFixed(1)} ms`)],
    ['5xx answers', ...bench.runs.map((r) => String(r.serverErrors))],
    ['other failures', ...bench.runs.map((r) => String(r.otherFailures))],
    [
      'failures by kind',
      ...bench.runs.map(
        (r) =>
          Object.entries(r.failures)
            .map(([what, n]) => `${what}: ${n}`)
            .join(', ') || 'none',
      ),
    ],
  ]
  const widths = header.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)))
  return rows.map((row) => row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')).join('\n')
}
