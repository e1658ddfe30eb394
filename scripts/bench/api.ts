import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { DEMO_ADMIN } from '#server/db/seed.ts'
import {
  type ChildServer,
  freePort,
  ROOT,
  removeDir,
  spawnServer,
  TSX,
  tempDataDir,
  waitFor200,
} from './processes.ts'
import { median, percentile } from './stats.ts'

/** One autocannon run. */
export type LoadResult = {
  label: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  /** Answers counted by HTTP status, e.g. `{ "200": 41230 }`. */
  statusCounts: Record<string, number>
  errors: number
  timeouts: number
}

/** Figures of the API section of the benchmark. */
export type ApiBench = {
  connections: number
  durationSeconds: number
  bareGet: LoadResult
  plans: LoadResult
  barePost: LoadResult
  checkEmail: LoadResult
  signIn: {
    requests: number
    medianMs: number
    p99Ms: number
    statusCounts: Record<string, number>
  }
}

type AutocannonJson = {
  requests: { average: number }
  latency: { p50: number; p99: number }
  statusCodeStats?: Record<string, { count: number }>
  errors: number
  timeouts: number
}

type LoadOptions = {
  url: string
  connections: number
  durationSeconds: number
  method?: 'GET' | 'POST'
  body?: string
}

function autocannon({ url, connections, durationSeconds, method = 'GET', body }: LoadOptions) {
  const args = [
    join(ROOT, 'node_modules', 'autocannon', 'autocannon.js'),
    '--json',
    '-c',
    String(connections),
    '-d',
    String(durationSeconds),
    '-m',
    method,
  ]
  if (body !== undefined) args.push('-H', 'Content-Type=application/json', '-b', body)
  args.push(url)
  return new Promise<AutocannonJson>((done, fail) => {
    // A process of its own: the load generator must not share an event loop with a server.
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2000)
    })
    child.once('error', fail)
    child.once('exit', (code) => {
      if (code !== 0) return fail(new Error(`autocannon exited with ${code}: ${err}`))
      try {
        done(JSON.parse(out) as AutocannonJson)
      } catch {
        fail(new Error(`autocannon printed no JSON: ${out.slice(0, 500)} ${err}`))
      }
    })
  })
}

async function load(label: string, options: LoadOptions): Promise<LoadResult> {
  // One second of warm-up (JIT, connection pools, PGlite's caches), not counted.
  await autocannon({ ...options, durationSeconds: 1 })
  const json = await autocannon(options)
  return {
    label,
    requestsPerSecond: json.requests.average,
    p50Ms: json.latency.p50,
    p99Ms: json.latency.p99,
    statusCounts: Object.fromEntries(
      Object.entries(json.statusCodeStats ?? {}).map(([status, stat]) => [status, stat.count]),
    ),
    errors: json.errors,
    timeouts: json.timeouts,
  }
}

async function startTsxServer(script: string, env: Record<string, string>): Promise<ChildServer> {
  const port = await freePort()
  const server = spawnServer(TSX, [join(ROOT, 'scripts', 'bench', script)], { port, env })
  try {
    await waitFor200(`${server.url}/api/health`, {
      since: performance.now(),
      child: server.child,
    })
  } catch (error) {
    await server.stop()
    throw error
  }
  return server
}

/**
 * `POST /auth/local` with the demo Admin, one request at a time, so each figure is one argon2id
 * verification plus the token and the audit row: `requests` timed after 10 untimed.
 */
async function timeSignIns(baseUrl: string, requests: number): Promise<ApiBench['signIn']> {
  const body = JSON.stringify({ identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password })
  const statusCounts: Record<string, number> = {}
  const times: number[] = []
  for (let i = 0; i < requests + 10; i++) {
    const started = performance.now()
    const response = await fetch(`${baseUrl}/api/auth/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    })
    await response.arrayBuffer()
    const elapsed = performance.now() - started
    if (i < 10) continue
    times.push(elapsed)
    statusCounts[response.status] = (statusCounts[response.status] ?? 0) + 1
  }
  return { requests, medianMs: median(times), p99Ms: percentile(times, 99), statusCounts }
}

/**
 * The API figures: `GET /api/practice/plans` and `POST /api/auth/check-email` under autocannon at
 * `connections` for `durationSeconds`, each right after the same load on a bare `node:http`
 * server (GET, and POST with a body), all on loopback; then `POST /api/auth/local` one at a time.
 *
 * The app runs in its own process on PGlite with the real `createApp`; its rate limiter is given a
 * store that never refuses (see unlimited-store.ts), so the status counts are all 200.
 */
export async function benchApi({
  connections = 20,
  durationSeconds = 5,
  signIns = 200,
}: {
  connections?: number
  durationSeconds?: number
  signIns?: number
} = {}): Promise<ApiBench> {
  const dataDir = tempDataDir('api')
  const bare = await startTsxServer('bare-server.ts', {})
  let app: ChildServer | undefined
  try {
    app = await startTsxServer('api-server.ts', { DATA_DIR: dataDir })
    const common = { connections, durationSeconds }
    const checkEmailBody = JSON.stringify({ email: 'bench@example.com', phone: '(555) 010-9999' })
    const bareGet = await load('bare node:http GET', { ...common, url: `${bare.url}/api/health` })
    const plans = await load('GET /api/practice/plans', {
      ...common,
      url: `${app.url}/api/practice/plans`,
    })
    const barePost = await load('bare node:http POST', {
      ...common,
      url: `${bare.url}/api/health`,
      method: 'POST',
      body: checkEmailBody,
    })
    const checkEmail = await load('POST /api/auth/check-email', {
      ...common,
      url: `${app.url}/api/auth/check-email`,
      method: 'POST',
      body: checkEmailBody,
    })
    const signIn = await timeSignIns(app.url, signIns)
    return { connections, durationSeconds, bareGet, plans, barePost, checkEmail, signIn }
  } finally {
    await Promise.all([bare.stop(), app?.stop()])
    removeDir(dataDir)
  }
}
