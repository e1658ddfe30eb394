/**
 * Several real server processes on one PostgreSQL database, as a hosted service or a multi-location
 * group runs them behind a proxy: each is `server/index.ts` in a child process of its
 * own, with its own data folder and port, sharing the database and the secrets.
 *
 * ```ts
 * const cluster = await startCluster({ processes: 2, env: { SMTP_URL: slow.url } })
 * const [a, b] = cluster.servers
 * await fetch(`${a.url}/api/health`)
 * await a.kill()            // a crash: SIGKILL, nothing flushed
 * await cluster.close()     // stops the rest, drops the database, removes the folders
 * ```
 *
 * These checks need PostgreSQL (PGlite is an engine inside one process): without
 * `TEST_DATABASE_URL`, {@link requirePostgres} fails with a sentence saying so, never a skip.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from '#scripts/lib/free-port.ts'
import { createDatabase, databaseUrl, dropDatabase } from './db-templates.ts'

/** The secrets every process of a cluster shares, as a production deployment must. */
export const CLUSTER_SECRETS = {
  JWT_SECRET: 'cluster-test-secret-that-is-long-enough-for-hs256-0123456789',
  DATA_ENCRYPTION_KEY: '07'.repeat(32),
} as const

/** TEST_DATABASE_URL, or an error that says the two-process checks need it. */
export function requirePostgres(): string {
  const url = process.env.TEST_DATABASE_URL?.trim()
  if (!url) {
    throw new Error(
      'The two-process checks need PostgreSQL: set TEST_DATABASE_URL (for example postgres://postgres@127.0.0.1:5432/test). .ci/run sets it when the local PostgreSQL answers.',
    )
  }
  return url
}

/** One server process of a cluster. */
export type ServerProcess = {
  /** `http://127.0.0.1:PORT` */
  url: string
  port: number
  dataDir: string
  child: ChildProcess
  /** The process's output so far (JSON or text log lines). */
  output(): string
  /** SIGTERM, and waits for it to exit (a clean shutdown). */
  stop(): Promise<void>
  /** SIGKILL, and waits for it to exit (a crash: nothing is flushed or released). */
  kill(): Promise<void>
  /** Starts it again on the same port, data folder and environment; resolves once healthy. */
  restart(): Promise<void>
}

export type Cluster = {
  /** The database every process uses. */
  databaseUrl: string
  servers: ServerProcess[]
  /** Stops every process still running, drops the database and removes the data folders. */
  close(): Promise<void>
}

type StartOptions = {
  /** How many processes (2 by default). */
  processes?: number
  /** Added to every process's environment (after the defaults, so it can override them). */
  env?: Record<string, string>
  /** Per-process additions, by index. */
  envOf?: (index: number) => Record<string, string>
  /** A word for the database's name (glow_<label>_<random>). Outside production the first
   * start seeds the demo practice, as `npm start` does. */
  label?: string
}

/** Starts `processes` servers on a new database of the local PostgreSQL, one after the other. */
export async function startCluster({
  processes = 2,
  env = {},
  envOf = () => ({}),
  label = 'cluster',
}: StartOptions = {}): Promise<Cluster> {
  const base = requirePostgres()
  const name = `glow_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`
  await createDatabase(base, name)
  const url = databaseUrl(base, name)
  const servers: ServerProcess[] = []
  try {
    // One after the other: the first migrates and seeds, the rest find it done (the migration and
    // the seed also hold advisory locks, so starting them together would be safe, only slower).
    for (let index = 0; index < processes; index++) {
      servers.push(await startServerProcess({ databaseUrl: url, env: { ...env, ...envOf(index) } }))
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()))
    await dropDatabase(base, name)
    throw error
  }
  return {
    databaseUrl: url,
    servers,
    async close() {
      await Promise.all(servers.map((server) => server.stop()))
      for (const server of servers) rmSync(server.dataDir, { recursive: true, force: true })
      await dropDatabase(base, name)
    },
  }
}

/** One real server process on `databaseUrl`; resolves once `/api/health` answers 200. */
export async function startServerProcess({
  databaseUrl: url,
  env = {},
}: {
  databaseUrl: string
  env?: Record<string, string>
}): Promise<ServerProcess> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'glow-cluster-'))
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    DATABASE_OWNER_URL: '',
    NODE_ENV: 'test',
    LOG_FORMAT: 'text',
    ...CLUSTER_SECRETS,
    // Every request comes from 127.0.0.1: the per-address limits of public calls would stop the
    // checks, not an attacker.
    SMS_PER_ADDRESS_HOURLY: '100000',
    SMS_HOURLY_BUDGET: '100000',
    PROMO_LOOKUPS_PER_ADDRESS: '100000',
    ...env,
  }
  let lines: string[] = []
  let child: ChildProcess
  let exited: Promise<void>

  const launch = async () => {
    child = spawn(process.execPath, ['--import', 'tsx', resolve('server/index.ts')], {
      env: fullEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const keep = (chunk: Buffer) => {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      if (lines.length > 2000) lines = lines.slice(-1000)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    exited = new Promise<void>((done) => child.once('exit', () => done()))
    await waitForHealth(`http://127.0.0.1:${port}`, child, () => lines.join('\n'))
  }
  await launch()

  const ended = () => child.exitCode !== null || child.signalCode !== null
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    get child() {
      return child
    },
    output: () => lines.join('\n'),
    async stop() {
      if (ended()) return
      child.kill('SIGTERM')
      await exited
    },
    async kill() {
      if (ended()) return
      child.kill('SIGKILL')
      await exited
    },
    async restart() {
      if (!ended()) {
        child.kill('SIGTERM')
        await exited
      }
      await launch()
    },
  }
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string) {
  // A safety net for a machine under load; a healthy start returns as soon as it answers.
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `The server exited (${child.exitCode ?? child.signalCode}) before answering:\n${output().split('\n').slice(-40).join('\n')}`,
      )
    }
    try {
      const response = await fetch(`${url}/api/health`)
      await response.arrayBuffer()
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`The server did not answer ${url}/api/health within 3 minutes:\n${output()}`)
}
