import type { Logger } from '#server/lib/log.ts'

/** Checks a human-check (hCaptcha) token the browser got from the widget. */
export interface CaptchaVerifier {
  verify(token: string, remoteIp?: string): Promise<boolean>
}

/** hCaptcha's published test secret; its test site key always hands out {@link HCAPTCHA_TEST_TOKEN}. */
export const HCAPTCHA_TEST_SECRET = '0x0000000000000000000000000000000000000000'
/** The token hCaptcha's test site key (10000000-ffff-ffff-ffff-000000000001) produces. */
export const HCAPTCHA_TEST_TOKEN = '10000000-aaaa-bbbb-cccc-000000000001'
/** hCaptcha's verification endpoint. */
export const HCAPTCHA_VERIFY_URL = 'https://api.hcaptcha.com/siteverify'

const VERIFY_TIMEOUT_MS = 5000

export type HcaptchaVerifierOptions = {
  secret: string
  /** In development the test secret is answered locally, since this network cannot reach hCaptcha. */
  production: boolean
  fetch?: typeof fetch
  log?: Logger
}

/**
 * Verifies tokens with hCaptcha's `siteverify`. It fails closed: a network error, a timeout or an
 * odd answer counts as "not verified", and is logged (without the token). Outside production the
 * test secret accepts exactly the test token without a network call.
 */
export function createHcaptchaVerifier({
  secret,
  production,
  fetch: fetchImpl = globalThis.fetch,
  log,
}: HcaptchaVerifierOptions): CaptchaVerifier {
  return {
    async verify(token, remoteIp) {
      if (token === '') return false
      if (secret === HCAPTCHA_TEST_SECRET && !production) return token === HCAPTCHA_TEST_TOKEN
      const body = new URLSearchParams({ secret, response: token })
      if (remoteIp && remoteIp !== 'local') body.set('remoteip', remoteIp)
      try {
        const response = await fetchImpl(HCAPTCHA_VERIFY_URL, {
          method: 'POST',
          body,
          signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
        })
        if (!response.ok) {
          log?.warn(`hCaptcha verification answered HTTP ${response.status}`)
          return false
        }
        const answer = (await response.json()) as { success?: unknown }
        return answer.success === true
      } catch (error) {
        log?.warn(
          `hCaptcha verification failed: ${error instanceof Error ? error.name : 'unknown error'}`,
        )
        return false
      }
    },
  }
}

/**
 * The verifier the environment asks for: hCaptcha when `HCAPTCHA_SECRET` is set, else none
 * (the captcha is off, as it is in the SPA without `VITE_HCAPTCHA_SITEKEY`).
 */
export function captchaVerifierFromEnv(
  env: Record<string, string | undefined>,
  options: Omit<HcaptchaVerifierOptions, 'secret'>,
): CaptchaVerifier | null {
  const secret = env.HCAPTCHA_SECRET?.trim()
  return secret ? createHcaptchaVerifier({ ...options, secret }) : null
}
