import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNextechClient, type NextechCredentials } from './client.ts'
import { NEXTECH_MESSAGES, NextechFailure, tokenFailure } from './failures.ts'
import { createNextechSandbox, NEXTECH_SANDBOX, SANDBOX_RATE_LIMIT } from './sandbox.ts'

const RIGHT: NextechCredentials = {
  client_id: NEXTECH_SANDBOX.clientId,
  username: NEXTECH_SANDBOX.username,
  password: NEXTECH_SANDBOX.password,
  nx_practice_id: NEXTECH_SANDBOX.practiceId,
}

const SANDBOX_URLS = {
  tokenUrl: `http://sandbox.test${NEXTECH_SANDBOX.mountPath}/nextech-api.com/oauth2/token`,
  apiUrl: `http://sandbox.test${NEXTECH_SANDBOX.mountPath}/api`,
}

/** A client of a fresh sandbox, on a clock the test moves. */
function sandboxClient(start = new Date('2026-11-27T10:00:00Z')) {
  let now = start
  const clock = () => now
  const sandbox = createNextechSandbox({ now: clock })
  const client = createNextechClient({ ...SANDBOX_URLS, fetch: sandbox.fetch }, clock)
  return {
    sandbox,
    client,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms)
    },
  }
}

/** The failure `promise` rejected with. */
async function failureOf(promise: Promise<unknown>): Promise<NextechFailure> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  if (!(error instanceof NextechFailure)) throw new Error(`expected a NextechFailure, got ${error}`)
  return error
}

describe('the Nextech client against the sandbox', () => {
  it('signs in with the password grant and reads a page of patients with nx-practice-id', async () => {
    const { client } = sandboxClient()
    const tokens = await client.signIn(RIGHT)
    // Azure AD v1 writes expires_in as "3599": an hour, less a second.
    expect(tokens.expires_at).toBe('2026-11-27T10:59:59.000Z')
    const bundle = await client.search(tokens, RIGHT.nx_practice_id, {
      resource: 'Patient',
      params: { _count: '1' },
    })
    expect(bundle.total).toBe(3)
    expect(bundle.entry).toHaveLength(1)
    expect(bundle.entry?.[0]?.resource).toMatchObject({ resourceType: 'Patient', id: '20001' })
  })

  it('says in words why a sign-in was refused', async () => {
    const { client } = sandboxClient()
    const wrongPassword = await failureOf(client.signIn({ ...RIGHT, password: 'nope' }))
    expect(wrongPassword.reason).toBe('credentials')
    expect(wrongPassword.message).toBe(NEXTECH_MESSAGES.credentials)
    const unknownUser = await failureOf(client.signIn({ ...RIGHT, username: 'who@x.test' }))
    expect(unknownUser.reason).toBe('credentials')
    const expired = await failureOf(
      client.signIn({
        ...RIGHT,
        username: NEXTECH_SANDBOX.newUser.username,
        password: NEXTECH_SANDBOX.newUser.password,
      }),
    )
    expect(expired.reason).toBe('password_expired')
    expect(expired.message).toContain('Reset it at Microsoft')
    const client_id = await failureOf(client.signIn({ ...RIGHT, client_id: 'not-ours' }))
    expect(client_id.reason).toBe('client_id')
  })

  it('names the practice ID Nextech does not know for this user', async () => {
    const { client } = sandboxClient()
    const tokens = await client.signIn(RIGHT)
    const failure = await failureOf(client.search(tokens, '9999', { resource: 'Patient' }))
    expect(failure.reason).toBe('practice_id')
    expect(failure.message).toBe(
      'Nextech does not know the practice ID "9999" for this API user. Check the practice ID Nextech gave you.',
    )
  })

  it('follows next links, 50 at most a page', async () => {
    const { client } = sandboxClient()
    const tokens = await client.signIn(RIGHT)
    const ids: string[] = []
    let page = await client.search(tokens, RIGHT.nx_practice_id, {
      resource: 'Patient',
      params: { _count: '2' },
    })
    for (;;) {
      ids.push(...(page.entry ?? []).map((entry) => entry.resource?.id ?? ''))
      const next = page.link?.find((link) => link.relation === 'next')?.url
      if (!next) break
      page = await client.search(tokens, RIGHT.nx_practice_id, { next })
    }
    expect(ids).toEqual(['20001', '20002', '20003'])
    const since = await client.search(tokens, RIGHT.nx_practice_id, {
      resource: 'Patient',
      params: { _lastUpdated: 'ge2026-11-02T00:00:00+00:00', _count: '500' },
    })
    expect(since.entry?.map((entry) => entry.resource?.id)).toEqual(['20002', '20003'])
  })

  it('is refused with 429 and Retry-After past 20 requests a second on one endpoint', async () => {
    const { client, advance } = sandboxClient()
    const tokens = await client.signIn(RIGHT)
    for (let i = 0; i < SANDBOX_RATE_LIMIT; i += 1) {
      await client.search(tokens, RIGHT.nx_practice_id, { resource: 'Patient' })
    }
    const limited = await failureOf(
      client.search(tokens, RIGHT.nx_practice_id, { resource: 'Patient' }),
    )
    expect(limited.reason).toBe('rate_limited')
    expect(limited.retryAfterSeconds).toBe(1)
    expect(limited.message).toBe(
      'Nextech is limiting requests from this API user right now. Try again in 1 seconds.',
    )
    advance(1000)
    await expect(
      client.search(tokens, RIGHT.nx_practice_id, { resource: 'Patient' }),
    ).resolves.toMatchObject({ resourceType: 'Bundle' })
  })

  it('renews both tokens with the refresh grant; the old refresh token then fails', async () => {
    const { client, advance } = sandboxClient()
    const first = await client.signIn(RIGHT)
    advance(3600_000)
    // The hour is over: the API refuses the old access token.
    const stale = await failureOf(
      client.search(first, RIGHT.nx_practice_id, { resource: 'Patient' }),
    )
    expect(stale.reason).toBe('token_expired')
    const renewed = await client.refresh(RIGHT, first.refresh_token)
    expect(renewed.access_token).not.toBe(first.access_token)
    await expect(
      client.search(renewed, RIGHT.nx_practice_id, { resource: 'Patient' }),
    ).resolves.toMatchObject({ total: 3 })
    const reused = await failureOf(client.refresh(RIGHT, first.refresh_token))
    expect(reused.reason).toBe('unexpected')
    expect(reused.message).toContain('AADSTS700082')
  })

  it('reads Azure AD answers it does not know, 5xx and 429 at sign-in, in words', () => {
    expect(tokenFailure(503, undefined, undefined).reason).toBe('unreachable')
    expect(tokenFailure(429, undefined, 30).message).toBe(
      'Nextech is limiting requests from this API user right now. Try again in 30 seconds.',
    )
    expect(tokenFailure(400, { error: 'invalid_client' }, undefined).reason).toBe('client_id')
    expect(
      tokenFailure(400, { error: 'interaction_required', error_codes: [50076] }, undefined).reason,
    ).toBe('mfa_required')
    expect(
      tokenFailure(400, { error: 'invalid_grant', error_codes: [12345] }, undefined).message,
    ).toBe('Nextech answered in a way Glow does not understand (AADSTS12345). Try again later.')
  })
})

describe('the Nextech client over HTTP, against a stand-in started by the test', () => {
  let server: Server
  let origin = ''
  beforeAll(async () => {
    const sandbox = createNextechSandbox()
    const mounted = new (await import('hono')).Hono().route(NEXTECH_SANDBOX.mountPath, sandbox.app)
    server = createServer(getRequestListener(mounted.fetch))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('signs in and reads patients with the real fetch', async () => {
    const client = createNextechClient({
      tokenUrl: `${origin}${NEXTECH_SANDBOX.mountPath}/nextech-api.com/oauth2/token`,
      apiUrl: `${origin}${NEXTECH_SANDBOX.mountPath}/api`,
      fetch,
    })
    const tokens = await client.signIn(RIGHT)
    const bundle = await client.search(tokens, RIGHT.nx_practice_id, { resource: 'Patient' })
    expect(bundle.entry).toHaveLength(3)
  })

  it('calls a Nextech that does not answer unreachable, in words', async () => {
    // A port nothing listens on: the stand-in's, once closed.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const client = createNextechClient({
      tokenUrl: `http://127.0.0.1:${port}/token`,
      apiUrl: `http://127.0.0.1:${port}/api`,
      fetch,
    })
    const failure = await failureOf(client.signIn(RIGHT))
    expect(failure.reason).toBe('unreachable')
    expect(failure.message).toBe(NEXTECH_MESSAGES.unreachable)
  })
})
