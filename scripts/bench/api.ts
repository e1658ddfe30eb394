import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import type { RecordedAnswer } from './bare-server.ts'
import { CPU_PATH } from './cpu-endpoint.ts'
import type { LoadRunnerOptions } from './load-runner.ts'
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
  /** The server process's CPU time (user + system) per answered request, in µs. */
  cpuMicrosPerRequest: number
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
  rounds: number
  bareGet: LoadResult
  plans: LoadResult
  /** app/bare requests-per-second share of each round. */
  getShares: number[]
  /** bare/app CPU-time-per-request share of each round: the app's capacity relative to bare. */
  getCpuShares: number[]
  barePost: LoadResult
  checkEmail: LoadResult
  postShares: number[]
  postCpuShares: number[]
  signIn: {
    requests: number
    medianMs: number
    p99Ms: number
    statusCounts: Record<string, number>
  }
}

type AutocannonJson = {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number }
  statusCodeStats?: Record<string, { count: number }>
  errors: number
  timeouts: number
}

type LoadOptions = Omit<LoadRunnerOptions, 'method'> & { method?: 'GET' | 'POST' }

function autocannon(options: LoadOptions) {
  const config: LoadRunnerOptions = { ...options, method: options.method ?? 'GET' }
  return new Promise<AutocannonJson>((done, fail) => {
    // A process of its own: the load generator must not share an event loop with a server.
    const child = spawn(
      TSX,
      [join(ROOT, 'scripts', 'bench', 'load-runner.ts'), JSON.stringify(config)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
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

async function cpuMicros(url: string): Promise<number> {
  const answer = (await (await fetch(new URL(CPU_PATH, url))).json()) as { cpuMicros: number }
  return answer.cpuMicros
}

async function load(label: string, options: LoadOptions): Promise<LoadResult> {
  // One second of warm-up (JIT, connection pools, PGlite's caches), not counted.
  await autocannon({ ...options, durationSeconds: 1 })
  const cpuBefore = await cpuMicros(options.url)
  const json = await autocannon(options)
  const cpuUsed = (await cpuMicros(options.url)) - cpuBefore
  return {
    label,
    requestsPerSecond: json.requests.average,
    cpuMicrosPerRequest: json.requests.total > 0 ? cpuUsed / json.requests.total : Number.NaN,
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
 * Runs `rounds` pairs of loads, the bare server right before the app each time, and keeps the
 * pair whose app/bare share of requests per second is the median. On a machine that other work
 * shares, a single pair can land on a busy moment for one side only; the median pair cannot.
 */
async function pairedRounds(
  rounds: number,
  run: { bare: () => Promise<LoadResult>; app: () => Promise<LoadResult> },
): Promise<{ bare: LoadResult; app: LoadResult; shares: number[]; cpuShares: number[] }> {
  const pairs: { bare: LoadResult; app: LoadResult; share: number; cpuShare: number }[] = []
  for (let round = 0; round < rounds; round++) {
    const bare = await run.bare()
    const app = await run.app()
    pairs.push({
      bare,
      app,
      share: app.requestsPerSecond / bare.requestsPerSecond,
      cpuShare: bare.cpuMicrosPerRequest / app.cpuMicrosPerRequest,
    })
  }
  const sorted = [...pairs].sort((a, b) => a.share - b.share)
  const middle = sorted[Math.floor(sorted.length / 2)]
  if (!middle) throw new Error('no load round ran')
  return {
    bare: middle.bare,
    app: middle.app,
    shares: pairs.map((pair) => pair.share),
    cpuShares: pairs.map((pair) => pair.cpuShare),
  }
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
 * server answering the same bytes, headers included (bare-server.ts), in `rounds` pairs (see {@link pairedRounds}),
 * all on loopback; then `POST /api/auth/local` one at a time.
 *
 * The app runs in its own process on PGlite with the real `createApp`; its rate limiter is given a
 * store that never refuses (see unlimited-store.ts), so the status counts are all 200.
 */
export async function benchApi({
  connections = 20,
  durationSeconds = 5,
  rounds = 3,
  signIns = 200,
}: {
  connections?: number
  durationSeconds?: number
  /** Bare-then-app pairs per endpoint; the pair with the median share is reported. */
  rounds?: number
  signIns?: number
} = {}): Promise<ApiBench> {
  const dataDir = tempDataDir('api')
  let app: ChildServer | undefined
  let bare: ChildServer | undefined
  try {
    app = await startTsxServer('api-server.ts', { DATA_DIR: dataDir })
    // The yardstick answers the very same bytes (headers and body) as the app: see bare-server.ts.
    const record = async (response: Response): Promise<RecordedAnswer> => ({
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
    })
    const answersFile = join(dataDir, 'answers.json')
    const answers = {
      get: await record(await fetch(`${app.url}/api/practice/plans`)),
      post: await record(
        await fetch(`${app.url}/api/auth/check-email`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: 'bench-0@example.com', phone: '(555) 010-9999' }),
        }),
      ),
    }
    writeFileSync(answersFile, JSON.stringify(answers))
    bare = await startTsxServer('bare-server.ts', { ANSWERS_FILE: answersFile })
    const common = { connections, durationSeconds }
    // A new e-mail on every request (load-runner.ts numbers `[<id>]`), as real checks come: no
    // answer can come from a cache of earlier identical questions.
    const checkEmailBody = JSON.stringify({
      email: 'bench-[<id>]@example.com',
      phone: '(555) 010-9999',
    })
    const appUrl = app.url
    const bareUrl = bare.url
    const get = await pairedRounds(rounds, {
      bare: () => load('bare node:http GET', { ...common, url: `${bareUrl}/api/practice/plans` }),
      app: () =>
        load('GET /api/practice/plans', { ...common, url: `${appUrl}/api/practice/plans` }),
    })
    const post = await pairedRounds(rounds, {
      bare: () =>
        load('bare node:http POST', {
          ...common,
          url: `${bareUrl}/api/auth/check-email`,
          method: 'POST',
          body: checkEmailBody,
        }),
      app: () =>
        load('POST /api/auth/check-email', {
          ...common,
          url: `${appUrl}/api/auth/check-email`,
          method: 'POST',
          body: checkEmailBody,
        }),
    })
    const signIn = await timeSignIns(app.url, signIns)
    return {
      connections,
      durationSeconds,
      rounds,
      bareGet: get.bare,
      plans: get.app,
      getShares: get.shares,
      getCpuShares: get.cpuShares,
      barePost: post.bare,
      checkEmail: post.app,
      postShares: post.shares,
      postCpuShares: post.cpuShares,
      signIn,
    }
  } finally {
    await Promise.all([bare?.stop(), app?.stop()])
    removeDir(dataDir)
  }
}
