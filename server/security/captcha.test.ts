import { describe, expect, it } from 'vitest'
import { memoryLogger } from '#server/lib/log.ts'
import {
  captchaVerifierFromEnv,
  createHcaptchaVerifier,
  HCAPTCHA_TEST_SECRET,
  HCAPTCHA_TEST_TOKEN,
  HCAPTCHA_VERIFY_URL,
} from './captcha.ts'

type Call = { url: string; body: URLSearchParams }

function fakeFetch(answer: () => Response | Promise<Response>) {
  const calls: Call[] = []
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), body: new URLSearchParams(String(init?.body ?? '')) })
    return answer()
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

describe('createHcaptchaVerifier', () => {
  it('asks siteverify with the secret, the token and the address', async () => {
    const { fetch, calls } = fakeFetch(() => Response.json({ success: true }))
    const verifier = createHcaptchaVerifier({ secret: 's3cret', production: true, fetch })
    expect(await verifier.verify('token-1', '203.0.113.9')).toBe(true)
    expect(calls).toHaveLength(1)
    expect(calls[0]?.url).toBe(HCAPTCHA_VERIFY_URL)
    expect(Object.fromEntries(calls[0]?.body ?? [])).toEqual({
      secret: 's3cret',
      response: 'token-1',
      remoteip: '203.0.113.9',
    })
  })

  it('refuses what hCaptcha refuses', async () => {
    const { fetch } = fakeFetch(() =>
      Response.json({ success: false, 'error-codes': ['invalid-input-response'] }),
    )
    const verifier = createHcaptchaVerifier({ secret: 's', production: true, fetch })
    expect(await verifier.verify('bad')).toBe(false)
  })

  it('fails closed on a network error or an HTTP error, and logs without the token', async () => {
    const log = memoryLogger()
    const down = createHcaptchaVerifier({
      secret: 's',
      production: true,
      log,
      fetch: (async () => {
        throw new TypeError('fetch failed')
      }) as typeof globalThis.fetch,
    })
    expect(await down.verify('secret-token-value')).toBe(false)
    const broken = createHcaptchaVerifier({
      secret: 's',
      production: true,
      log,
      fetch: fakeFetch(() => new Response('oops', { status: 500 })).fetch,
    })
    expect(await broken.verify('secret-token-value')).toBe(false)
    expect(log.lines).toHaveLength(2)
    expect(log.lines.join('\n')).not.toContain('secret-token-value')
  })

  it('answers the test secret locally outside production: only the test token passes', async () => {
    const { fetch, calls } = fakeFetch(() => Response.json({ success: true }))
    const verifier = createHcaptchaVerifier({
      secret: HCAPTCHA_TEST_SECRET,
      production: false,
      fetch,
    })
    expect(await verifier.verify(HCAPTCHA_TEST_TOKEN)).toBe(true)
    expect(await verifier.verify('anything-else')).toBe(false)
    expect(calls).toHaveLength(0)
  })

  it('asks hCaptcha even for the test secret in production', async () => {
    const { fetch, calls } = fakeFetch(() => Response.json({ success: true }))
    const verifier = createHcaptchaVerifier({
      secret: HCAPTCHA_TEST_SECRET,
      production: true,
      fetch,
    })
    await verifier.verify(HCAPTCHA_TEST_TOKEN)
    expect(calls).toHaveLength(1)
  })

  it('refuses an empty token without asking', async () => {
    const { fetch, calls } = fakeFetch(() => Response.json({ success: true }))
    const verifier = createHcaptchaVerifier({ secret: 's', production: true, fetch })
    expect(await verifier.verify('')).toBe(false)
    expect(calls).toHaveLength(0)
  })
})

describe('captchaVerifierFromEnv', () => {
  it('is off without HCAPTCHA_SECRET and on with it', async () => {
    expect(captchaVerifierFromEnv({}, { production: false })).toBeNull()
    expect(captchaVerifierFromEnv({ HCAPTCHA_SECRET: '  ' }, { production: false })).toBeNull()
    const verifier = captchaVerifierFromEnv(
      { HCAPTCHA_SECRET: HCAPTCHA_TEST_SECRET },
      { production: false },
    )
    expect(await verifier?.verify(HCAPTCHA_TEST_TOKEN)).toBe(true)
  })
})
