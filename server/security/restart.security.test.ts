/**
 * Faults with a real server process: the server is killed with SIGKILL in the middle of a
 * sign-up (between the practice row and the user row of its transaction), then started again on
 * the same PGlite data folder. Every committed row must be there, and nothing of the interrupted
 * sign-up. And a SIGTERM that arrives while the server is still starting (it answers /api/health
 * before the demo practice's first Nextech sync is over) stops it cleanly once started.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '#scripts/lib/free-port.ts'
import { openDatabase } from '#server/db/client.ts'
import {
  nextechSyncRuns,
  patients,
  practices,
  users,
  verificationCodes,
} from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { type ApiCall, postJson, readySignUp, signIn } from '#server/testing/api-journeys.ts'

const JWT_SECRET = 'restart-test-secret-that-is-long-enough-0123456789'

/** Starts `server/index.ts` as its own process on `dataDir`; resolves once /api/health answers. */
async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SERVE_DIST: '',
      NODE_ENV: 'test',
      JWT_SECRET,
      DATABASE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  // No deadline of its own: the test's timeout is the safety net. A fixed minute was too short for
  // a first start (migrate and seed a new data folder) on a machine busy several times over.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`)
      if (response.ok) return child
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
}

describe('restart after a crash (PGlite on disk, SIGKILL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'glow-restart-'))
  let child: ChildProcess | undefined
  let port: number
  let call: ApiCall

  beforeAll(async () => {
    // The fault: a user row named "Crash" makes the database wait, so the sign-up's transaction is
    // open, with its practice row written, when the process is killed.
    const handle = await openDatabase({ dataDir })
    await handle.db.execute(
      sql.raw(`create or replace function stall_user() returns trigger language plpgsql as $$
        begin perform pg_sleep(60); return new; end $$`),
    )
    await handle.db.execute(
      sql.raw(`create trigger stall_user before insert on users for each row
        when (new.first_name = 'Crash') execute function stall_user()`),
    )
    await handle.close()
    port = await freePort()
    call = (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init)
  })

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL')
      await exited(child)
    }
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('keeps every committed row and nothing of the sign-up that was interrupted', async () => {
    child = await startServer(dataDir, port)
    const admin = await signIn(call, DEMO_ADMIN.email, DEMO_ADMIN.password)
    const created: number[] = []
    for (let i = 0; i < 20; i++) {
      const response = await postJson(
        call,
        '/api/patients',
        { first_name: `Kept${i}`, last_name: 'Patient', email: `kept${i}@example.com` },
        admin.jwt,
      )
      expect(response.status).toBe(201)
      created.push(((await response.json()) as { id: number }).id)
    }
    const finished = await readySignUp(call, 4_100_000 + Math.floor(Math.random() * 99_999))
    expect((await postJson(call, '/api/auth/local/register', finished)).status).toBe(200)

    const interrupted = await readySignUp(call, 4_200_000 + Math.floor(Math.random() * 99_999))
    const pending = postJson(call, '/api/auth/local/register', {
      ...interrupted,
      first_name: 'Crash',
    }).then(
      () => 'answered',
      () => 'connection lost',
    )
    // Give the request time to reach the stalled user insert, then pull the plug.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    child.kill('SIGKILL')
    await exited(child)
    expect(await pending).toBe('connection lost')

    child = await startServer(dataDir, port)
    const again = await signIn(call, DEMO_ADMIN.email, DEMO_ADMIN.password)
    const listed = (await (
      await call(`/api/patients/all/by-practice/${again.practice.id}`, {
        headers: { Authorization: `Bearer ${again.jwt}` },
      })
    ).json()) as { id: number; first_name: string }[]
    const ids = new Set(listed.map((row) => row.id))
    expect(created.every((id) => ids.has(id))).toBe(true)
    // The sign-up that finished before the crash still signs in.
    await signIn(call, finished.email, finished.password)
    // The interrupted one left nothing behind: the same sign-up goes through on a retry.
    const retry = await postJson(call, '/api/auth/local/register', interrupted)
    expect(retry.status, await retry.clone().text()).toBe(200)

    child.kill('SIGTERM')
    await exited(child)
    const handle = await openDatabase({ dataDir })
    try {
      const practicesOfRetry = await handle.db
        .select({ id: practices.id })
        .from(practices)
        .where(eq(practices.practice_email, interrupted.practice.practice_email.toLowerCase()))
      expect(practicesOfRetry).toHaveLength(1)
      const crashUsers = await handle.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.first_name, 'Crash'))
      expect(crashUsers).toEqual([])
      const [kept] = await handle.db
        .select({ n: sql<number>`count(*)::int` })
        .from(patients)
        .where(eq(patients.last_name, 'Patient'))
      expect(Number(kept?.n)).toBe(20)
      const [verification] = await handle.db
        .select({ used_at: verificationCodes.used_at })
        .from(verificationCodes)
        .where(eq(verificationCodes.id, interrupted.authyId))
      expect(verification?.used_at).toBeInstanceOf(Date)
    } finally {
      await handle.close()
    }
  }, 180_000)
})

describe('a SIGTERM while the server is still starting', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'glow-early-stop-'))

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('stops cleanly once started, and leaves no Nextech sync running in the database', async () => {
    // A new data folder: the start seeds the demo practice and connects it to the Nextech
    // sandbox, whose first sync runs after /api/health already answers.
    const child = await startServer(dataDir, await freePort())
    child.kill('SIGTERM')
    await exited(child)
    // Node's own handler would have ended the process by the signal, mid-sync.
    expect({ code: child.exitCode, signal: child.signalCode }).toEqual({ code: 0, signal: null })
    const handle = await openDatabase({ dataDir })
    try {
      const runs = await handle.db
        .select({ status: nextechSyncRuns.status, error: nextechSyncRuns.error })
        .from(nextechSyncRuns)
      expect(runs.length).toBeGreaterThan(0)
      expect(runs.filter((run) => run.status === 'running')).toEqual([])
      expect(runs.filter((run) => run.error !== null)).toEqual([])
    } finally {
      await handle.close()
    }
  }, 180_000)
})
