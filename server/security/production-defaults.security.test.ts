/**
 * 2 and 4 and the DATA_DIR part of 9: what a server started on its
 * defaults gives away. The production starts run `server/index.ts` as its own process, as an
 * operator would, and read what it printed and what it stored.
 */
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ServerConfig } from '#server/config.ts'
import { PGLITE_EXTENSIONS } from '#server/db/client.ts'
import { DEMO_ADMIN, DEMO_MANAGER, DEMO_STAFF } from '#server/demo/seed.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { DEFAULT_MAIL_FROM } from '#server/messaging/smtp-mail.ts'
import { ensureDataDir, startServer } from '#server/start.ts'

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' }

type Run = { output: string; code: number | null; port?: number; stop(): Promise<void> }

/**
 * Runs `server/index.ts` with `env` (over a clean, non-production base). Resolves when the server
 * says where it runs, or when the process ends (a refused start).
 */
function boot(env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      SERVE_DIST: '',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const run: Run = {
    output: '',
    code: null,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the server neither started nor stopped: ${run.output}`))
      // A fresh PGlite folder takes seconds to create, minutes on a machine under load.
    }, 200_000)
    const read = (chunk: Buffer) => {
      run.output += chunk.toString()
      const match = /is running at http:\/\/localhost:(\d+)/.exec(run.output)
      if (match && run.port === undefined) {
        run.port = Number(match[1])
        clearTimeout(timer)
        resolve(run)
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.once('exit', (code) => {
      run.code = code
      clearTimeout(timer)
      resolve(run)
    })
  })
}

/** Row counts of every table of a stopped server's PGlite folder. */
async function countRows(dataDir: string): Promise<Record<string, number>> {
  const db = await PGlite.create(join(dataDir, 'pglite'), { extensions: PGLITE_EXTENSIONS })
  try {
    const tables = await db.query<{ tablename: string }>(
      "select tablename from pg_tables where schemaname = 'public' order by tablename",
    )
    const counts: Record<string, number> = {}
    for (const { tablename } of tables.rows) {
      const result = await db.query<{ n: number }>(`select count(*)::int as n from "${tablename}"`)
      counts[tablename] = result.rows[0]?.n ?? -1
    }
    const coupons = await db.query<{ id: string }>('select id from coupons order by id')
    counts[`coupon ${coupons.rows.map((row) => row.id).join(',')}`] = coupons.rows.length
    return counts
  } finally {
    await db.close()
  }
}

describe('a production start on an empty database', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'glow-production-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('seeds plans and the public coupon only, prints no password, and keeps test payments off the web', async () => {
    const dataDir = join(dir, 'data')
    const run = await boot({
      NODE_ENV: 'production',
      ALLOW_TEST_PAYMENTS: 'true',
      DATA_DIR: dataDir,
      JWT_SECRET: 'production-test-secret-that-is-long-enough-0123',
    })
    try {
      expect(run.port, run.output).toBeDefined()
      const api = `http://127.0.0.1:${run.port}/api`
      const plans = (await (await fetch(`${api}/practice/plans`)).json()) as {
        plans: { data: unknown[] }
        coupons: { data: { id: string }[] }
      }
      expect(plans.plans.data).toHaveLength(4)
      expect(plans.coupons.data.map((coupon) => coupon.id)).toEqual(['WELCOME10'])
      expect((await fetch(`${api}/practice/coupons/SAVE50OFF`)).status).toBe(404)

      // The test gateway is on (ALLOW_TEST_PAYMENTS) but its card form never answers here.
      const token = await fetch(`${api}/payments/test-tokens`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(CARD),
      })
      expect(token.status).toBe(404)
      expect((await fetch(`${api}/dev/outbox`)).status).toBe(404)
    } finally {
      await run.stop()
    }

    expect(run.output).not.toContain(DEMO_ADMIN.password)
    expect(run.output).not.toContain(DEMO_STAFF.password)
    expect(run.output).not.toContain(DEMO_MANAGER.password)
    expect(run.output).not.toContain('Demo sign-in')
    // Structured: one JSON object a line, the test-payments warning among them.
    const records = run.output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string })
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: expect.stringMatching(/^TEST PAYMENTS IN PRODUCTION/),
      }),
    )

    const counts = await countRows(dataDir)
    expect(counts).toMatchObject({
      plans: 4,
      coupons: 1,
      'coupon WELCOME10': 1,
      practices: 0,
      users: 0,
      patients: 0,
      personnel_invitations: 0,
      outbox: 0,
      appointments: 0,
    })
  }, 300_000)

  it('refuses to start without STRIPE_SECRET_KEY, with a sentence and no stack', async () => {
    const run = await boot({ NODE_ENV: 'production', DATA_DIR: join(dir, 'refused') })
    expect(run.code).toBe(1)
    expect(run.port).toBeUndefined()
    expect(run.output).toContain('NODE_ENV=production needs STRIPE_SECRET_KEY')
    expect(run.output).toContain('ALLOW_TEST_PAYMENTS=true')
    expect(run.output).not.toMatch(/\n\s+at /)
  })

  it('refuses to start on PostgreSQL without JWT_SECRET and DATA_ENCRYPTION_KEY, generating neither', async () => {
    const dataDir = join(dir, 'no-secrets')
    // Nothing listens on port 1: the refusal comes before any connection.
    const postgres = {
      NODE_ENV: 'production',
      STRIPE_SECRET_KEY: 'sk_live_not_used',
      DATABASE_URL: 'postgres://glow_app:pw@127.0.0.1:1/glow',
      DATA_DIR: dataDir,
    }
    const run = await boot(postgres)
    expect(run.code).toBe(1)
    expect(run.port).toBeUndefined()
    expect(run.output).toContain(
      'NODE_ENV=production with DATABASE_URL needs JWT_SECRET and DATA_ENCRYPTION_KEY, the same in every server process on that database; make each with `openssl rand -hex 32`.',
    )
    expect(run.output).not.toMatch(/\n\s+at /)
    expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(false)
    expect(existsSync(join(dataDir, 'data-key'))).toBe(false)

    const half = await boot({ ...postgres, JWT_SECRET: 'a'.repeat(64) })
    expect(half.code).toBe(1)
    expect(half.output).toContain(
      'needs DATA_ENCRYPTION_KEY, the same in every server process on that database; make it with `openssl rand -hex 32`.',
    )
    expect(half.output).not.toContain('JWT_SECRET')
  })

  it('names a DATA_DIR it cannot create or write, with no stack', async () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, 'not a folder')
    const missing = await boot({ DATA_DIR: join(file, 'data') })
    expect(missing.code).toBe(1)
    expect(missing.output).toContain(
      `DATA_DIR ${join(file, 'data')} does not exist and cannot be created (ENOTDIR). Set DATA_DIR to a folder this server may write to.`,
    )
    expect(missing.output).not.toMatch(/\n\s+at /)

    // A folder the server cannot write in. Root writes through file modes, so the write check
    // is made to fail by a folder standing where its probe file goes.
    const readOnly = join(dir, 'read-only')
    mkdirSync(join(readOnly, '.write-check'), { recursive: true })
    chmodSync(readOnly, 0o555)
    try {
      expect(() => ensureDataDir(readOnly)).toThrow(
        new RegExp(`^DATA_DIR ${readOnly} is not writable \\((EACCES|EISDIR)\\)\\. Set DATA_DIR`),
      )
    } finally {
      chmodSync(readOnly, 0o755)
    }
  })
})

describe('SEED_DEMO in production', () => {
  it('seeds the demo practice only when asked, and says so without its password', async () => {
    const log = memoryLogger()
    const server = await startServer(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir: 'memory',
        publicUrl: 'http://localhost:3000',
        allowedOrigins: ['http://localhost:3000'],
        production: true,
        mailFrom: DEFAULT_MAIL_FROM,
        seedDemo: true,
        allowTestPayments: true,
      },
      { log },
    )
    try {
      expect(server.demo).toBe(true)
      const logged = log.lines.join('\n')
      expect(logged).toContain('The demo practice is in this production database')
      expect(logged).not.toContain(DEMO_ADMIN.password)
    } finally {
      await server.close()
    }
  })
})

describe('development mode on a non-loopback address', () => {
  const config: ServerConfig = {
    port: 0,
    host: '0.0.0.0',
    dataDir: 'memory',
    publicUrl: 'http://localhost:3000',
    allowedOrigins: ['http://localhost:3000'],
    production: false,
    mailFrom: DEFAULT_MAIL_FROM,
  }
  const closers: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const close of closers.splice(0)) await close()
  })

  it('says so at start, and the outbox answers loopback clients only (by socket, not header)', async () => {
    const log = memoryLogger()
    const server = await startServer(config, { log })
    closers.push(server.close)
    expect(log.lines).toContainEqual(
      expect.stringMatching(
        /^warn: DEVELOPMENT MODE on 0\.0\.0\.0:\d+, reachable from other machines: set NODE_ENV=production/,
      ),
    )

    const local = await fetch(`http://127.0.0.1:${server.port}/api/dev/outbox`)
    expect(local.status).toBe(200)
    const { networkInterfaces } = await import('node:os')
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)
    // The same outbox asked from another interface's address, claiming to be local in headers.
    const spoofed = { 'X-Forwarded-For': '127.0.0.1', 'X-Real-IP': '127.0.0.1', Host: 'localhost' }
    if (lan) {
      const remote = await fetch(`http://${lan.address}:${server.port}/api/dev/outbox`, {
        headers: spoofed,
      })
      expect(remote.status).toBe(404)
    }
    // Whatever the machine's interfaces, a socket from another address is refused.
    const fromElsewhere = await server.app.fetch(
      new Request('http://localhost/api/dev/outbox', { headers: spoofed }),
      { incoming: { socket: { remoteAddress: '203.0.113.9' } } },
    )
    expect(fromElsewhere.status).toBe(404)
    const fromMapped = await server.app.fetch(new Request('http://localhost/api/dev/outbox'), {
      incoming: { socket: { remoteAddress: '::ffff:127.0.0.1' } },
    })
    expect(fromMapped.status).toBe(200)
    // The patients' unsubscribe tokens on the same terms as the outbox.
    const token = '/api/dev/patients/1/unsubscribe-id'
    const tokenElsewhere = await server.app.fetch(
      new Request(`http://localhost${token}`, { headers: spoofed }),
      { incoming: { socket: { remoteAddress: '203.0.113.9' } } },
    )
    expect(tokenElsewhere.status).toBe(404)
    const tokenLocal = await fetch(`http://127.0.0.1:${server.port}${token}`)
    expect(tokenLocal.status).toBe(200)
    expect(await tokenLocal.json()).toEqual({ unsubscribe_id: expect.any(String) })
  })

  it('says nothing of the kind on a loopback address', async () => {
    const log = memoryLogger()
    const server = await startServer({ ...config, host: '127.0.0.1' }, { log })
    closers.push(server.close)
    expect(log.lines.join('\n')).not.toContain('DEVELOPMENT MODE')
  })
})
