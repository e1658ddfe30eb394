/**
 * The real servers the browser tests run against: one per Playwright worker, so that workers run
 * side by side without seeing each other's data, each on a copy of one seeded data folder.
 *
 * - The global setup ({@link prepareServerTemplate}) builds the web app when needed and starts the
 *   server once on a new data folder, which migrates and seeds it (the demo practice and its year
 *   of history), then stops it: that folder is the template.
 * - Each worker ({@link startWorkerServer}) copies the template, starts `server/index.ts` on port
 *   `base + parallelIndex` (so the Chromium flags that name the remote host's origins can be
 *   known up front) and waits for `/api/health`; it stops the server and removes the copy at the
 *   end. The server's log goes to `.tmp/servers/<worker>.log`, and a failed start prints it.
 *
 * The journeys (tests/e2e) and the QA path replay (tests/paths) share this and the build.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** The environment variable that names the template data folder for the workers. */
export const TEMPLATE_ENV = 'GLOW_E2E_TEMPLATE'

/** hCaptcha's published test site key: any key turns the widget on for a non-local host. */
export const TEST_SITE_KEY = '10000000-ffff-ffff-ffff-000000000001'

/** A name for the server that is not this machine: captcha on, as on a real host. */
export const REMOTE_HOST = 'glow.test'

/**
 * Playwright workers of the browser stages: E2E_WORKERS, else one per core (at most 4). A worker's
 * Chromium and server leave about a quarter of two cores idle while the page waits on the server
 * and the test on the page; a second worker fills it: 24 journeys took 95 s instead of 123 s, and
 * the two browser stages 8 minutes instead of 15 (decision record 013). Every wait is on
 * something the page shows, with wide safety nets, so a slower test is not a failing one.
 */
export const WORKERS = Number(
  process.env.E2E_WORKERS ?? Math.max(1, Math.min(4, availableParallelism())),
)

/** The first worker's port: `npm test` picks a free range and passes it in E2E_PORT. */
export function basePort(): number {
  return Number(process.env.E2E_PORT ?? 4310)
}

/** The port of the server of worker slot `parallelIndex`. */
export function workerPort(parallelIndex: number): number {
  return basePort() + parallelIndex
}

/** Chromium flags that make `glow.test` reach every worker's server as a secure origin. */
export function remoteHostArgs(workers: number): string[] {
  const origins = Array.from(
    { length: workers },
    (_, index) => `http://${REMOTE_HOST}:${workerPort(index)}`,
  )
  return [
    `--host-resolver-rules=MAP ${REMOTE_HOST} 127.0.0.1`,
    `--unsafely-treat-insecure-origin-as-secure=${origins.join(',')}`,
  ]
}

/** The environment variable that names the template PostgreSQL database, when the servers use one. */
export const PG_TEMPLATE_ENV = 'GLOW_E2E_PG_TEMPLATE'

/**
 * The PostgreSQL server the browser stages' servers use, when there is one: TEST_DATABASE_URL
 * (`.ci/run` sets it when the local PostgreSQL answers). A native PostgreSQL answers the journeys'
 * queries for a fraction of the CPU that PGlite (PostgreSQL compiled to WebAssembly, in the
 * server's own thread) takes, and the two cores are what the browser stages wait on (decision
 * record 013). Without one, PGlite in the data folder, as `npm start` runs.
 */
function postgresBaseUrl(): string | undefined {
  return process.env.E2E_DATABASE === 'pglite'
    ? undefined
    : process.env.TEST_DATABASE_URL || undefined
}

/** The server's environment: test mode on loopback, with the per-address limits of public calls lifted. */
function serverEnv(port: number, dataDir: string, databaseUrl = ''): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    // Set either way, so that a DATABASE_URL of the shell never gives every worker one database.
    DATABASE_URL: databaseUrl,
    DATABASE_OWNER_URL: '',
    NODE_ENV: 'test',
    SERVE_DIST: 'dist',
    HCAPTCHA_SITEKEY: TEST_SITE_KEY,
    // Every journey comes from 127.0.0.1: the per-address limits of public calls would stop the
    // suite, not an attacker. Their own tests run against the defaults in-process.
    SMS_PER_ADDRESS_HOURLY: '100000',
    SMS_HOURLY_BUDGET: '100000',
    PROMO_LOOKUPS_PER_ADDRESS: '100000',
  }
}

async function waitForHealth(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 180_000
  let exited: number | null = null
  child.once('exit', (code) => {
    exited = code ?? -1
  })
  while (Date.now() < deadline) {
    if (exited !== null) {
      throw new Error(`The server exited (${exited}) before answering:\n${readLog(log)}`)
    }
    try {
      const response = await fetch(`${url}/api/health`)
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100))
  }
  throw new Error(`The server did not answer ${url}/api/health within 3 minutes:\n${readLog(log)}`)
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-40).join('\n')
  } catch {
    return '(no log)'
  }
}

/** A server process on `dataDir`, answering on `port`; resolves once it is healthy. */
async function startServerProcess(port: number, dataDir: string, log: string, databaseUrl = '') {
  mkdirSync(resolve('.tmp/servers'), { recursive: true })
  const out = createWriteStream(log, { flags: 'a' })
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    env: serverEnv(port, dataDir, databaseUrl),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.pipe(out)
  child.stderr?.pipe(out)
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForHealth(url, child, log)
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((done) => child.once('exit', done))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * Playwright's global setup: builds the web app if needed, then migrates and seeds a template data
 * folder with one start of the real server. Returns the teardown that removes it.
 */
export async function prepareServerTemplate(): Promise<() => Promise<void>> {
  if (process.env[TEMPLATE_ENV]) return async () => {}
  const { ensureBuilt } = await import('#scripts/lib/build.ts')
  await ensureBuilt()
  const template = mkdtempSync(join(tmpdir(), 'glow-e2e-template-'))
  const started = performance.now()
  const base = postgresBaseUrl()
  const { createDatabase, databaseUrl, dropDatabase } = await import(
    '#server/testing/db-templates.ts'
  )
  const pgTemplate = base ? `glow_e2e_${randomBytes(4).toString('hex')}` : undefined
  if (base && pgTemplate) await createDatabase(base, pgTemplate)
  const server = await startServerProcess(
    workerPort(0),
    template,
    resolve('.tmp/servers/template.log'),
    base && pgTemplate ? databaseUrl(base, pgTemplate) : '',
  )
  await server.stop()
  console.log(
    `Seeded the servers' data folder${pgTemplate ? ` and database ${pgTemplate}` : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  )
  process.env[TEMPLATE_ENV] = template
  if (pgTemplate) process.env[PG_TEMPLATE_ENV] = pgTemplate
  return async () => {
    rmSync(template, { recursive: true, force: true })
    if (base && pgTemplate) await dropDatabase(base, pgTemplate)
  }
}

/** Starts worker slot `parallelIndex`'s server on a copy of the template. */
export async function startWorkerServer(parallelIndex: number) {
  const template = process.env[TEMPLATE_ENV]
  if (!template) throw new Error(`${TEMPLATE_ENV} is not set: the global setup did not run`)
  const dataDir = mkdtempSync(join(tmpdir(), `glow-e2e-${parallelIndex}-`))
  cpSync(template, dataDir, { recursive: true })
  // With PostgreSQL, the worker's database is a copy of the template database.
  const base = postgresBaseUrl()
  const templateName = process.env[PG_TEMPLATE_ENV]
  const { createDatabase, databaseUrl, dropDatabase } = await import(
    '#server/testing/db-templates.ts'
  )
  const name =
    base && templateName
      ? `${templateName}_w${parallelIndex}_${randomBytes(3).toString('hex')}`
      : undefined
  const drop = async () => {
    rmSync(dataDir, { recursive: true, force: true })
    if (base && name) await dropDatabase(base, name)
  }
  const port = workerPort(parallelIndex)
  try {
    let workerUrl = ''
    if (base && name && templateName) {
      await createDatabase(base, name, templateName)
      workerUrl = databaseUrl(base, name)
    }
    const log = resolve(`.tmp/servers/worker-${parallelIndex}.log`)
    let server = await startServerProcess(port, dataDir, log, workerUrl)
    return {
      url: server.url,
      port,
      /** The worker's PostgreSQL database, or '' on PGlite (its data folder is the server's alone). */
      databaseUrl: workerUrl,
      /**
       * Runs one SQL statement on the worker's database, for data the API refuses to make (rows as
       * an older version wrote them). On PostgreSQL it connects beside the server; PGlite belongs to
       * the server's process alone, so the server stops, the statement runs on its data folder, and
       * the server starts again on the same port (sessions survive: the secret is in the folder).
       */
      async query(text: string, params: unknown[] = []): Promise<void> {
        if (workerUrl) {
          const { default: pg } = await import('pg')
          const client = new pg.Client({ connectionString: workerUrl })
          await client.connect()
          try {
            await client.query(text, params)
          } finally {
            await client.end()
          }
          return
        }
        await server.stop()
        const { PGlite } = await import('@electric-sql/pglite')
        const { PGLITE_EXTENSIONS } = await import('#server/db/client.ts')
        const db = await PGlite.create(join(dataDir, 'pglite'), { extensions: PGLITE_EXTENSIONS })
        try {
          await db.query(text, params)
        } finally {
          await db.close()
        }
        server = await startServerProcess(port, dataDir, log, workerUrl)
      },
      async stop() {
        await server.stop()
        await drop()
      },
    }
  } catch (error) {
    await drop()
    throw error
  }
}
