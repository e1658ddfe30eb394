import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NEXTECH_SANDBOX_LOGIN, type NextechRun } from '#domain/nextech.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { createNextechSandbox, type NextechSandbox } from '#server/nextech/sandbox.ts'
import { TEXAS_PRACTICE_DETAILS } from '#server/testing/api-journeys.ts'
import { type Cluster, type ServerProcess, startCluster } from '#server/testing/server-processes.ts'
import { fixture } from '#tests/support/image-fixtures.ts'

/**
 * Issue 30, "shared state in shared places": two real server processes on one PostgreSQL, in
 * production mode with the secrets they must share, behind no sticky session. Whatever one
 * process made (a session, its end, an uploaded image, sealed Nextech credentials) the other
 * one accepts, refuses or serves alike.
 */
describe('two server processes share sessions, uploads and sealed settings', () => {
  let cluster: Cluster
  let a: ServerProcess
  let b: ServerProcess
  // A Nextech stand-in both processes reach over HTTP, as they would reach Nextech.
  let nextech: NextechSandbox
  let nextechServer: Server
  beforeAll(async () => {
    nextech = createNextechSandbox()
    nextechServer = createServer(getRequestListener(nextech.app.fetch))
    await new Promise<void>((resolve) => nextechServer.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(nextechServer.address() as AddressInfo).port}`
    cluster = await startCluster({
      label: 'shared',
      // The demo practice in production, so that there is someone to sign in as.
      env: {
        NODE_ENV: 'production',
        ALLOW_TEST_PAYMENTS: 'true',
        SEED_DEMO: 'true',
        NEXTECH_TOKEN_URL: `${origin}/nextech-api.com/oauth2/token`,
        NEXTECH_API_URL: `${origin}/api`,
        // Syncs only when asked, so that the test decides when both are asked.
        NEXTECH_SYNC_MINUTES: '0',
      },
    })
    const [first, second] = cluster.servers
    if (!first || !second) throw new Error('the cluster has fewer than two processes')
    a = first
    b = second
  }, 400_000)
  afterAll(async () => {
    await cluster?.close()
    await new Promise<void>((resolve) => nextechServer?.close(() => resolve()))
  }, 60_000)

  const signIn = async (server: ServerProcess, password: string = DEMO_ADMIN.password) => {
    const response = await fetch(`${server.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: DEMO_ADMIN.email, password }),
    })
    expect(response.status, await response.clone().text()).toBe(200)
    return ((await response.json()) as { jwt: string }).jwt
  }
  const call = (server: ServerProcess, path: string, token: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
      },
    })

  it('syncs a practice with Nextech once when both processes are asked at the same time', async () => {
    const token = await signIn(a)
    const saved = await call(a, '/practice', token, {
      method: 'PUT',
      body: JSON.stringify({
        ...TEXAS_PRACTICE_DETAILS,
        e_record: 'nextech',
        nextech: { ...NEXTECH_SANDBOX_LOGIN },
      }),
    })
    expect(saved.status, await saved.clone().text()).toBe(200)
    const tested = await call(b, '/practice/integrations/nextech/test', token, { method: 'POST' })
    expect(await tested.json()).toMatchObject({ ok: true })
    // Bills of today for the demo's three people (the stand-in's patients are the demo's own).
    const billed: Record<string, number> = { '20001': 0, '20002': 0, '20003': 0 }
    for (let i = 0; i < 90; i += 1) {
      const patientId = String(20001 + (i % 3))
      const price = 10 + (i % 7)
      nextech.store.addBill({
        patientId,
        items: [{ code: 'SVC', text: `Visit ${i}`, unitPrice: price }],
      })
      billed[patientId] = (billed[patientId] ?? 0) + price
    }
    const balances = async () => {
      const list = await call(a, '/patients?pageSize=100', token)
      const body = (await list.json()) as { data: { email: string | null; points: number }[] }
      return Object.fromEntries(body.data.map((patient) => [patient.email, patient.points]))
    }
    const before = await balances()
    const start = async (server: ServerProcess) => {
      const response = await call(server, '/practice/integrations/nextech/sync', token, {
        method: 'POST',
      })
      expect(response.status, await response.clone().text()).toBe(202)
      return ((await response.json()) as { run_id: number }).run_id
    }
    const follow = (server: ServerProcess, id: number) =>
      vi.waitFor(
        async () => {
          const response = await call(server, `/practice/integrations/nextech/runs/${id}`, token)
          const run = (await response.json()) as NextechRun
          expect(run.status).not.toBe('running')
          return run
        },
        { timeout: 60_000, interval: 50 },
      )
    const [fromA, fromB] = await Promise.all([start(a), start(b)])
    const [runA, runB] = await Promise.all([follow(a, fromA), follow(b, fromB)])
    expect(runA.status).toBe('done')
    expect(runB.status).toBe('done')
    // One run did the work; the other was it, or came after it and found nothing new.
    const awarded = [...new Set([runA, runB].map((run) => run.id))].map(
      (id) => ([runA, runB].find((run) => run.id === id) as NextechRun).counts.points_awarded,
    )
    const total = Object.values(billed).reduce((sum, points) => sum + points, 0)
    expect(awarded.reduce((sum, points) => sum + points, 0)).toBe(total)
    // Asked again, on either: nothing twice.
    const again = await follow(b, await start(b))
    expect(again.counts.points_awarded).toBe(0)
    const after = await balances()
    expect(after['avery.johnson@example.com']).toBe(
      (before['avery.johnson@example.com'] ?? 0) + (billed['20001'] ?? 0),
    )
    expect(after['blake.martinez@example.com']).toBe(
      (before['blake.martinez@example.com'] ?? 0) + (billed['20002'] ?? 0),
    )
    expect(after['casey.nguyen@example.com']).toBe(
      (before['casey.nguyen@example.com'] ?? 0) + (billed['20003'] ?? 0),
    )
  })

  it('serves an image uploaded through one from the other, the same bytes and headers', async () => {
    const token = await signIn(a)
    for (const purpose of ['logo', 'avatar'] as const) {
      const form = new FormData()
      form.set('file', new File([fixture('tiny.png')], `${purpose}.png`, { type: 'image/png' }))
      form.set('purpose', purpose)
      const uploaded = await call(a, '/upload/files', token, { method: 'POST', body: form })
      expect(uploaded.status, await uploaded.clone().text()).toBe(201)
      const { url, size } = (await uploaded.json()) as { url: string; size: number }
      const fromA = await fetch(`${a.url}${url}`)
      const fromB = await fetch(`${b.url}${url}`)
      expect([fromA.status, fromB.status]).toEqual([200, 200])
      expect(fromB.headers.get('content-type')).toBe('image/png')
      expect(fromB.headers.get('cache-control')).toBe(fromA.headers.get('cache-control'))
      const bytesA = Buffer.from(await fromA.arrayBuffer())
      const bytesB = Buffer.from(await fromB.arrayBuffer())
      expect(bytesB.length).toBe(size)
      expect(bytesB.equals(bytesA)).toBe(true)
    }
    // The logo, linked on B, is the practice's on A too; removed on A, it answers 404 on B.
    const form = new FormData()
    form.set('file', new File([fixture('tiny.webp')], 'logo.webp', { type: 'image/webp' }))
    form.set('purpose', 'logo')
    const logo = (await (
      await call(b, '/upload/files', token, { method: 'POST', body: form })
    ).json()) as { id: number; url: string }
    const linked = await call(b, '/practice/logo', token, {
      method: 'PUT',
      body: JSON.stringify({ upload_id: logo.id }),
    })
    expect(linked.status).toBe(200)
    const practice = (await (await call(a, '/practice', token)).json()) as { image_path: string }
    expect(practice.image_path).toBe(logo.url)
    expect((await fetch(`${a.url}${logo.url}`)).status).toBe(200)
    expect((await call(a, '/practice/logo', token, { method: 'DELETE' })).status).toBe(200)
    expect((await fetch(`${b.url}${logo.url}`)).status).toBe(404)
  })

  it('reads on one the Nextech credentials sealed on the other', async () => {
    const token = await signIn(b)
    const saved = await call(a, '/practice', token, {
      method: 'PUT',
      body: JSON.stringify({
        ...TEXAS_PRACTICE_DETAILS,
        e_record: 'nextech',
        nextech: {
          client_id: 'client-42',
          username: 'glow-user',
          password: 'S3cret-Nextech!',
          nx_practice_id: 'NX-7',
        },
      }),
    })
    expect(saved.status, await saved.clone().text()).toBe(200)
    const read = await call(b, '/practice', token)
    expect(read.status).toBe(200)
    expect(((await read.json()) as { nextech: unknown }).nextech).toEqual({
      client_id: 'client-42',
      nx_practice_id: 'NX-7',
      username_set: true,
      password_set: true,
    })
  })

  it('accepts on one a session from the other, and ends it on both at a sign-out or a new password', async () => {
    const me = (server: ServerProcess, token: string) =>
      call(server, '/users-permissions/init', token).then((response) => response.status)

    // Signed in on A, accepted on B; signed out on A, refused on B.
    const signedOut = await signIn(a)
    expect(await me(b, signedOut)).toBe(200)
    expect((await call(a, '/auth/logout', signedOut, { method: 'POST' })).status).toBe(200)
    expect(await me(b, signedOut)).toBe(401)
    expect(await me(a, signedOut)).toBe(401)

    // Signed in on B; the password changed on A ends B's session, and the new password works on B.
    const other = await signIn(b)
    const changer = await signIn(a)
    expect(await me(b, other)).toBe(200)
    const changed = await call(a, '/auth/change-password', changer, {
      method: 'POST',
      body: JSON.stringify({
        current_password: DEMO_ADMIN.password,
        password: 'N3w-Demo-Pass-456',
        passwordConfirmation: 'N3w-Demo-Pass-456',
      }),
    })
    expect(changed.status, await changed.clone().text()).toBe(200)
    const { jwt: continued } = (await changed.json()) as { jwt: string }
    expect(await me(b, other)).toBe(401)
    expect(await me(b, changer)).toBe(401)
    // The session the change answered continues on both.
    expect(await me(b, continued)).toBe(200)
    expect(await me(b, await signIn(b, 'N3w-Demo-Pass-456'))).toBe(200)
  })
})
