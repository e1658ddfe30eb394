import * as v from 'valibot'
import { DEFAULT_SUPPORT_EMAIL } from '#domain/footer-links.ts'

/** A build-time flag: `true`/`1`/`yes` are on, `false`/`0`/`no`/empty are off; anything else is a mistake. */
const Flag = v.optional(
  v.union([
    v.boolean(),
    v.pipe(
      v.string(),
      v.trim(),
      v.toLowerCase(),
      v.picklist(['true', 'false', '1', '0', 'yes', 'no', ''], 'Use true or false.'),
      v.transform((value) => value === 'true' || value === '1' || value === 'yes'),
    ),
  ]),
  false,
)

/** An optional text setting: unset and empty both mean "not configured". */
const OptionalText = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.transform((value) => (value === '' ? undefined : value)),
  ),
)

/**
 * The SPA's configuration, read from `import.meta.env` (Vite exposes only `VITE_*` variables to the
 * browser). Every key is listed in `.env.example`.
 */
export const EnvSchema = v.object({
  /** Base of every API call; relative values are resolved against the page's origin. */
  VITE_API_URL: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty()), '/api'),
  /** hCaptcha site key; without it the sign-in captcha is off. */
  VITE_HCAPTCHA_SITEKEY: OptionalText,
  /** Stripe publishable key; without it the server's test payment gateway is used. */
  VITE_STRIPE_PUBLISHABLE_KEY: OptionalText,
  /** Tester mode hides the captcha. */
  VITE_TESTER_MODE: Flag,
  VITE_PRODUCTION: Flag,
  VITE_LOCAL: Flag,
  /** Keys of the mobile analytics and push services; optional. */
  VITE_ANALYTICS_KEY: OptionalText,
  VITE_PUSH_KEY: OptionalText,
  /** Where the footer's Support Centre writes when the practice set no support link of its own. */
  VITE_SUPPORT_EMAIL: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.transform((value) => value || DEFAULT_SUPPORT_EMAIL),
      v.email('VITE_SUPPORT_EMAIL must be an e-mail address.'),
    ),
    DEFAULT_SUPPORT_EMAIL,
  ),
  /** Minutes of inactivity before a signed-in session is ended. */
  VITE_IDLE_TIMEOUT_MINUTES: v.optional(
    v.pipe(
      v.union([v.number(), v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number))]),
      v.integer(),
      v.minValue(1),
    ),
    15,
  ),
})
export type Env = v.InferOutput<typeof EnvSchema>

/**
 * Parses raw environment values. Throws with every problem listed, so a misconfigured build fails
 * at start-up instead of misbehaving later.
 */
export function parseEnv(raw: Record<string, unknown>): Env {
  const result = v.safeParse(EnvSchema, raw)
  if (result.success) return result.output
  const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '?'}: ${issue.message}`)
  throw new Error(`Invalid environment configuration: ${problems.join('; ')}`)
}

/**
 * Settings the server announces in the page's head (`<meta name="glow:NAME">`, server/static.ts):
 * they override the build's values, so one build serves any hCaptcha site key.
 */
export function runtimeSettings(
  doc: Pick<Document, 'querySelector'> | undefined = globalThis.document,
): Record<string, string> {
  const setting = (name: string) =>
    doc?.querySelector<HTMLMetaElement>(`meta[name="glow:${name}"]`)?.getAttribute('content')
  const siteKey = setting('hcaptcha-sitekey')
  const supportEmail = setting('support-email')
  return {
    ...(siteKey ? { VITE_HCAPTCHA_SITEKEY: siteKey } : {}),
    ...(supportEmail ? { VITE_SUPPORT_EMAIL: supportEmail } : {}),
  }
}

/** The parsed configuration of this build, with the server's run-time settings over it. */
export const env: Env = parseEnv({ ...import.meta.env, ...runtimeSettings() })

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1'])

/**
 * Whether the sign-in captcha is off: no site key configured, running on localhost, or tester mode
 *.
 */
export function isCaptchaOff(
  hostname: string = globalThis.location?.hostname ?? '',
  config: Pick<Env, 'VITE_HCAPTCHA_SITEKEY' | 'VITE_TESTER_MODE'> = env,
): boolean {
  return !config.VITE_HCAPTCHA_SITEKEY || LOCAL_HOSTS.has(hostname) || config.VITE_TESTER_MODE
}
