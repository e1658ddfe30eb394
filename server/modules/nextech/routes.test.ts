import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import {
  NEXTECH_SETUP_MESSAGES,
  type NextechStatus,
  type NextechTestAnswer,
  NO_NEXTECH_COUNTS,
} from '#domain/nextech.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { nextechConnections } from '#server/db/schema.ts'
import type { NextechCredentials } from '#server/nextech/client.ts'
import { NEXTECH_MESSAGES } from '#server/nextech/failures.ts'
import { NEXTECH_SANDBOX } from '#server/nextech/sandbox.ts'
import { TEXAS_PRACTICE_DETAILS as TEXAS } from '#server/testing/api-journeys.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { NEXTECH_TEST_LIMIT, NEXTECH_TEST_TOO_MANY } from './routes.ts'

const RIGHT: NextechCredentials = {
  client_id: NEXTECH_SANDBOX.clientId,
  username: NEXTECH_SANDBOX.username,
  password: NEXTECH_SANDBOX.password,
  nx_practice_id: NEXTECH_SANDBOX.practiceId,
}

describe.each(testBackends())('the Nextech connection on $name, against the sandbox', (backend) => {
  // One data key for every app of this file: what one seals, another opens.
  const t = useTestApp(backend, { dataKey: randomBytes(32) })

  const status = async (token = t.demo.adminToken) => {
    const response = await t.request('/api/practice/integrations/nextech', { token })
    expect(response.status).toBe(200)
    return (await response.json()) as NextechStatus
  }
  const test = async (token = t.demo.adminToken) => {
    const response = await t.request('/api/practice/integrations/nextech/test', {
      method: 'POST',
      token,
    })
    return { status: response.status, body: (await response.json()) as NextechTestAnswer }
  }
  const saveNextech = async (nextech: NextechCredentials) => {
    const response = await t.request('/api/practice', {
      method: 'PUT',
      token: t.demo.adminToken,
      json: { ...TEXAS, e_record: 'nextech', nextech },
    })
    expect(response.status).toBe(200)
  }
  const lastTestEvent = async () => {
    const response = await t.request('/api/audit?action=integration.tested', {
      token: t.demo.adminToken,
    })
    return ((await response.json()) as { data: { summary: string }[] }).data[0]?.summary
  }

  it('says there is nothing to test until the practice chose Nextech and gave its four fields', async () => {
    expect(await status(t.demo.staffToken)).toEqual({
      chosen: false,
      configured: false,
      connected: false,
      status: 'untested',
      practice_id: null,
      last_checked_at: null,
      connected_since: null,
      errors: [],
      sandbox: true,
      sync: {
        last_sync_at: null,
        lag_seconds: null,
        counts: NO_NEXTECH_COUNTS,
        review_count: 0,
        unmapped_count: 0,
        running_run_id: null,
      },
    })
    expect((await test()).body).toEqual({ ok: false, message: NEXTECH_SETUP_MESSAGES.notChosen })
  })

  it('answers each refusal in words, and keeps the last one in the status', async () => {
    await saveNextech({ ...RIGHT, password: 'not-the-password' })
    expect((await test()).body).toEqual({ ok: false, message: NEXTECH_MESSAGES.credentials })
    expect(await status()).toMatchObject({
      chosen: true,
      configured: true,
      connected: false,
      status: 'failing',
      practice_id: RIGHT.nx_practice_id,
      errors: [NEXTECH_MESSAGES.credentials],
    })
    expect(await lastTestEvent()).toMatch(
      /tested the Nextech connection: it failed \(credentials\)\.$/,
    )

    await saveNextech({
      ...RIGHT,
      username: NEXTECH_SANDBOX.newUser.username,
      password: NEXTECH_SANDBOX.newUser.password,
    })
    expect((await test()).body.message).toBe(NEXTECH_MESSAGES.password_expired)

    await saveNextech({ ...RIGHT, client_id: 'someone-else' })
    expect((await test()).body.message).toBe(NEXTECH_MESSAGES.client_id)

    await saveNextech({ ...RIGHT, nx_practice_id: '4242' })
    expect((await test()).body.message).toBe(
      'Nextech does not know the practice ID "4242" for this API user. Check the practice ID Nextech gave you.',
    )
  })

  it('connects with the right fields: the tokens are kept sealed, and the log says it works', async () => {
    // A clock the test moves, starting now (the session tokens are today's).
    const start = new Date(Math.floor(Date.now() / 1000) * 1000)
    const later = new Date(start.getTime() + 10 * 60_000)
    t.setNow(start)
    try {
      await saveNextech(RIGHT)
      expect((await test()).body).toEqual({ ok: true, message: NEXTECH_MESSAGES.connected })
      expect(await status(t.demo.staffToken)).toMatchObject({
        connected: true,
        status: 'connected',
        practice_id: '1001',
        last_checked_at: start.toISOString(),
        connected_since: start.toISOString(),
        errors: [],
      })
      const [row] = await t.db
        .select({ tokens: nextechConnections.tokens })
        .from(nextechConnections)
        .where(eq(nextechConnections.practice_id, t.demo.practiceId))
      expect(row?.tokens).toMatchObject({ v: 1, alg: 'A256GCM' })
      expect(JSON.stringify(row?.tokens)).not.toMatch(/access_token|refresh_token/)
      expect(await lastTestEvent()).toMatch(/tested the Nextech connection: it works\.$/)

      // A second test later keeps the connection's start.
      t.setNow(later)
      expect((await test()).body.ok).toBe(true)
      expect(await status()).toMatchObject({
        last_checked_at: later.toISOString(),
        connected_since: start.toISOString(),
      })

      // New fields: what the connection said was about the old ones, and its tokens go.
      await saveNextech({ ...RIGHT, password: 'a-new-password' })
      expect(await status()).toMatchObject({ status: 'untested', connected: false, errors: [] })
      const gone = await t.db
        .select()
        .from(nextechConnections)
        .where(eq(nextechConnections.practice_id, t.demo.practiceId))
      expect(gone).toEqual([])
      await saveNextech(RIGHT)
    } finally {
      t.setNow(undefined)
    }
  })

  it('lets only an Admin test, saying what is missing', async () => {
    const refused = await test(t.demo.staffToken)
    expect(refused.status).toBe(403)
    expect(JSON.stringify(refused.body)).toContain(PERMISSION_REFUSALS['practice.settings'])
  })

  it('refuses an eleventh test in a minute, in words', async () => {
    // A minute of its own, after the tests above (whose clock went 10 minutes ahead).
    t.setNow(new Date(Date.now() + 20 * 60_000))
    try {
      for (let i = 0; i < NEXTECH_TEST_LIMIT.max; i += 1) expect((await test()).status).toBe(200)
      const refused = await test()
      expect(refused.status).toBe(429)
      expect(JSON.stringify(refused.body)).toContain(NEXTECH_TEST_TOO_MANY)
    } finally {
      t.setNow(undefined)
    }
  })

  it('says Nextech is unreachable when nothing answers at its address', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const offline = t.makeApp({
      nextech: {
        tokenUrl: `http://127.0.0.1:${port}/nextech-api.com/oauth2/token`,
        apiUrl: `http://127.0.0.1:${port}/api`,
      },
    })
    const response = await offline.request('/api/practice/integrations/nextech/test', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.demo.adminToken}`,
        'x-xsrf-token': 'x',
        cookie: 'XSRF-TOKEN=x',
      },
    })
    expect(await response.json()).toEqual({ ok: false, message: NEXTECH_MESSAGES.unreachable })
  })

  it('serves the sandbox outside production only', async () => {
    const ask = (app: ReturnType<typeof t.makeApp>) =>
      app.request(`${NEXTECH_SANDBOX.mountPath}/nextech-api.com/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'password',
          client_id: 'x',
          resource: 'https://select.nextech-api.com/api',
        }).toString(),
      })
    const here = await ask(t.makeApp())
    expect(here.status).toBe(400)
    expect(await here.json()).toMatchObject({ error: 'unauthorized_client', error_codes: [700016] })
    expect((await ask(t.makeApp({ production: true }))).status).toBe(404)
  })
})
