import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import * as v from 'valibot'
import type { S3Settings } from '#server/files/s3-file-store.ts'
import { DEFAULT_MAIL_FROM } from '#server/messaging/smtp-mail.ts'
import type { TwilioSettings } from '#server/messaging/twilio-sms.ts'
import { NEXTECH_PRODUCTION } from '#server/nextech/client.ts'

/** Everything the server reads from its environment (see `.env.example`). */
export type ServerConfig = {
  port: number
  host: string
  /** Home of the embedded PGlite database and the generated JWT secret, or `'memory'`. */
  dataDir: string
  /** A PostgreSQL server instead of PGlite. */
  databaseUrl?: string | undefined
  /**
   * DATABASE_OWNER_URL: the same database as the tables' owner, for migrations; DATABASE_URL's role
   * then gets SELECT and INSERT only on the audit trail and cannot touch its triggers.
   */
  databaseOwnerUrl?: string | undefined
  publicUrl: string
  /** Origins allowed in e-mailed links: PUBLIC_URL's plus ALLOWED_ORIGINS. */
  allowedOrigins: string[]
  production: boolean
  jwtSecret?: string | undefined
  /** DATA_ENCRYPTION_KEY (64 hex digits): seals secrets at rest; unset: `DATA_DIR/data-key`. */
  dataKey?: string | undefined
  /** The built SPA to serve; unset serves the API only. */
  distDir?: string | undefined
  /**
   * HCAPTCHA_SITEKEY: the hCaptcha site key the served pages announce to the browser (a runtime
   * setting, so one build serves any key); unset: the key the web app was built with, if any.
   */
  hcaptchaSiteKey?: string | undefined
  /**
   * SUPPORT_EMAIL: where the footer's Support Centre writes for a practice without an e-mail of
   * its own (a runtime setting the served pages announce); unset: the build's VITE_SUPPORT_EMAIL,
   * by default support@glowrewards.com.
   */
  supportEmail?: string | undefined
  /** SMTP_URL (smtp:// or smtps://): e-mail goes out over SMTP; unset keeps the outbox. */
  smtpUrl?: string | undefined
  /** MAIL_FROM: the From of every e-mail sent over SMTP. */
  mailFrom: string
  /** TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM: SMS codes go through Twilio. */
  twilio?: TwilioSettings | undefined
  /**
   * S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (S3_REGION, default
   * us-east-1): new uploaded images go to that S3-compatible bucket; unset keeps them in the database.
   */
  s3?: S3Settings | undefined
  /** TRUST_PROXY: the client address comes from the last X-Forwarded-For entry. */
  trustProxy?: boolean
  /**
   * SEED_DEMO: an empty database also gets the demo practice (its Admin, staff, patients) and the
   * demo's private coupon. Default: on outside production, off in production.
   */
  seedDemo?: boolean
  /**
   * NEXTECH_TOKEN_URL and NEXTECH_API_URL: where the Nextech integration signs in and reads. In
   * production they default to Nextech's own addresses; elsewhere, unset, the built-in Nextech
   * sandbox answers (server/nextech/sandbox.ts). One without the other is an error.
   */
  nextech?: { tokenUrl: string; apiUrl: string } | undefined
  /**
   * NEXTECH_SYNC_MINUTES: how often the server syncs each connected practice with Nextech
   * (default 5; 0 turns the schedule off, "Sync now" still works).
   */
  nextechSyncMinutes?: number
  /**
   * BILLING_RUN_MINUTES: how often the server runs the memberships' renewals, retries and notices
   * that fell due (default 15; 0 turns the schedule off).
   */
  billingRunMinutes?: number
  /** STRIPE_SECRET_KEY: card payments go to Stripe; unset uses the built-in test gateway. */
  stripeSecretKey?: string | undefined
  /** STRIPE_WEBHOOK_SECRET: the signing secret of the Stripe Connect webhook (memberships). */
  stripeWebhookSecret?: string | undefined
  /**
   * ALLOW_TEST_PAYMENTS: production may start without STRIPE_SECRET_KEY, on the test gateway (no
   * card is charged). Without it production refuses to start; it is logged as a warning.
   */
  allowTestPayments?: boolean
}

/** A setting that does not parse; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

// An empty value (`DATABASE_URL=` copied from .env.example) means "not set".
const optionalText = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.transform((value) => (value === '' ? undefined : value)),
  ),
)

/** An optional true/false variable; `undefined` when unset or empty. */
function flag(variable: string) {
  return v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.toLowerCase(),
      v.picklist(['', 'true', 'false', '1', '0'], `${variable} must be true or false`),
      v.transform((value) => (value === '' ? undefined : value === 'true' || value === '1')),
    ),
  )
}

const EnvSchema = v.object({
  PORT: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^\d{1,5}$/, 'PORT must be a port number'),
      v.transform(Number),
      v.maxValue(65535, 'PORT must be at most 65535'),
    ),
    '3000',
  ),
  HOST: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty('HOST must not be empty')), '0.0.0.0'),
  DATA_DIR: optionalText,
  DATABASE_URL: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.regex(/^postgres(ql)?:\/\/\S+$/)),
      ],
      'DATABASE_URL must be a postgres:// or postgresql:// connection string',
    ),
  ),
  DATABASE_OWNER_URL: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.regex(/^postgres(ql)?:\/\/\S+$/)),
      ],
      'DATABASE_OWNER_URL must be a postgres:// or postgresql:// connection string',
    ),
  ),
  PUBLIC_URL: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.url(), v.regex(/^https?:\/\//)),
      ],
      'PUBLIC_URL must be an http(s) URL such as http://localhost:3000',
    ),
  ),
  ALLOWED_ORIGINS: optionalText,
  NODE_ENV: optionalText,
  JWT_SECRET: v.optional(
    v.union(
      [v.pipe(v.string(), v.empty()), v.pipe(v.string(), v.minLength(32))],
      'JWT_SECRET must be at least 32 characters (or empty to generate one)',
    ),
  ),
  DATA_ENCRYPTION_KEY: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.hexadecimal(), v.length(64)),
      ],
      'DATA_ENCRYPTION_KEY must be 64 hexadecimal digits (openssl rand -hex 32), or empty to generate one',
    ),
  ),
  SERVE_DIST: v.optional(v.pipe(v.string(), v.trim())),
  HCAPTCHA_SITEKEY: optionalText,
  SUPPORT_EMAIL: v.optional(
    v.union(
      [v.pipe(v.string(), v.trim(), v.empty()), v.pipe(v.string(), v.trim(), v.email())],
      'SUPPORT_EMAIL must be an e-mail address such as support@example.com',
    ),
  ),
  SMTP_URL: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(
          v.string(),
          v.trim(),
          v.regex(/^smtps?:\/\/\S+$/i),
          v.check((url) => URL.canParse(url) && new URL(url).hostname !== ''),
        ),
      ],
      'SMTP_URL must be an smtp:// or smtps:// URL such as smtp://user:pass@smtp.example.com:587',
    ),
  ),
  MAIL_FROM: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.regex(/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/)),
      ],
      'MAIL_FROM must be an e-mail address, optionally with a name: Glow Rewards <no-reply@example.com>',
    ),
  ),
  TWILIO_ACCOUNT_SID: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.regex(/^AC[0-9a-f]{32}$/i)),
      ],
      'TWILIO_ACCOUNT_SID must be AC followed by 32 hexadecimal digits',
    ),
  ),
  TWILIO_AUTH_TOKEN: optionalText,
  TWILIO_FROM: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.regex(/^\+[1-9]\d{1,14}$|^MG[0-9a-f]{32}$/i)),
      ],
      'TWILIO_FROM must be a number in E.164 form such as +15550100100, or a Messaging Service SID (MG…)',
    ),
  ),
  S3_ENDPOINT: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.url(), v.regex(/^https?:\/\/[^/?#]+\/?$/)),
      ],
      'S3_ENDPOINT must be the http(s) address of the S3 service without a path, such as https://s3.eu-west-1.amazonaws.com',
    ),
  ),
  S3_BUCKET: v.optional(
    v.union(
      [
        v.pipe(v.string(), v.trim(), v.empty()),
        v.pipe(v.string(), v.trim(), v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/)),
      ],
      'S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens',
    ),
  ),
  S3_REGION: optionalText,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  TRUST_PROXY: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.toLowerCase(),
      v.picklist(['', 'true', 'false', '1', '0'], 'TRUST_PROXY must be true or false'),
      v.transform((value) => value === 'true' || value === '1'),
    ),
    '',
  ),
  SEED_DEMO: flag('SEED_DEMO'),
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  ALLOW_TEST_PAYMENTS: flag('ALLOW_TEST_PAYMENTS'),
  NEXTECH_TOKEN_URL: optionalText,
  NEXTECH_API_URL: optionalText,
  NEXTECH_SYNC_MINUTES: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^\d{1,4}$/, 'NEXTECH_SYNC_MINUTES must be a whole number of minutes'),
      v.transform(Number),
      v.maxValue(1440, 'NEXTECH_SYNC_MINUTES must be at most 1440 (a day)'),
    ),
    '5',
  ),
  BILLING_RUN_MINUTES: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(/^\d{1,4}$/, 'BILLING_RUN_MINUTES must be a whole number of minutes'),
      v.transform(Number),
      v.maxValue(1440, 'BILLING_RUN_MINUTES must be at most 1440 (a day)'),
    ),
    '15',
  ),
})

/**
 * Nextech's addresses: both given, or both unset (production: Nextech's own; elsewhere: none, so
 * the built-in sandbox answers). Each must be an http(s) address.
 */
function nextechSettings(
  e: { NEXTECH_TOKEN_URL?: string | undefined; NEXTECH_API_URL?: string | undefined },
  production: boolean,
): { tokenUrl: string; apiUrl: string } | undefined {
  const tokenUrl = e.NEXTECH_TOKEN_URL || undefined
  const apiUrl = e.NEXTECH_API_URL || undefined
  if (!tokenUrl && !apiUrl) return production ? { ...NEXTECH_PRODUCTION } : undefined
  if (!tokenUrl || !apiUrl) {
    throw new ConfigError(
      `Invalid configuration: NEXTECH_TOKEN_URL and NEXTECH_API_URL go together; missing ${tokenUrl ? 'NEXTECH_API_URL' : 'NEXTECH_TOKEN_URL'}`,
    )
  }
  for (const [name, value] of [
    ['NEXTECH_TOKEN_URL', tokenUrl],
    ['NEXTECH_API_URL', apiUrl],
  ] as const) {
    if (!/^https?:\/\/[^\s/]+/.test(value)) {
      throw new ConfigError(`Invalid configuration: ${name} must be an http(s) address`)
    }
  }
  return { tokenUrl, apiUrl: apiUrl.replace(/\/+$/, '') }
}

/** The Twilio account when all three TWILIO_* are set, none when none is; anything between is an error. */
function twilioSettings(e: {
  TWILIO_ACCOUNT_SID?: string | undefined
  TWILIO_AUTH_TOKEN?: string | undefined
  TWILIO_FROM?: string | undefined
}): TwilioSettings | undefined {
  const accountSid = e.TWILIO_ACCOUNT_SID || undefined
  const authToken = e.TWILIO_AUTH_TOKEN || undefined
  const from = e.TWILIO_FROM || undefined
  if (accountSid && authToken && from) return { accountSid, authToken, from }
  const missing = Object.entries({
    TWILIO_ACCOUNT_SID: accountSid,
    TWILIO_AUTH_TOKEN: authToken,
    TWILIO_FROM: from,
  })
    .filter(([, value]) => value === undefined)
    .map(([name]) => name)
  // Half a Twilio account would quietly send codes to the outbox instead: refuse to start.
  if (missing.length < 3) {
    throw new ConfigError(
      `Invalid configuration: TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM go together; missing ${missing.join(', ')}`,
    )
  }
  return undefined
}

/**
 * Production on PostgreSQL needs JWT_SECRET and DATA_ENCRYPTION_KEY from the environment (issue
 * 30): every process on the database must sign sessions and seal secrets with the same ones, and
 * a generated one lives in a single process's DATA_DIR (a token from one would be 401 on another,
 * a Nextech setting saved on one unreadable on the other). PGlite belongs to one process, and
 * development keeps generating them.
 */
function requireSharedSecrets(secrets: { jwtSecret?: string; dataKey?: string }): void {
  const missing = [
    ...(secrets.jwtSecret ? [] : ['JWT_SECRET']),
    ...(secrets.dataKey ? [] : ['DATA_ENCRYPTION_KEY']),
  ]
  if (missing.length === 0) return
  const names = missing.join(' and ')
  throw new ConfigError(
    `Invalid configuration: NODE_ENV=production with DATABASE_URL needs ${names}, the same in ` +
      `every server process on that database; make ${missing.length > 1 ? 'each' : 'it'} with ` +
      '`openssl rand -hex 32`.',
  )
}

/** The bucket when S3_ENDPOINT, S3_BUCKET and both keys are set, none when none is; else an error. */
function s3Settings(e: {
  S3_ENDPOINT?: string | undefined
  S3_BUCKET?: string | undefined
  S3_REGION?: string | undefined
  S3_ACCESS_KEY_ID?: string | undefined
  S3_SECRET_ACCESS_KEY?: string | undefined
}): S3Settings | undefined {
  const given = {
    S3_ENDPOINT: e.S3_ENDPOINT || undefined,
    S3_BUCKET: e.S3_BUCKET || undefined,
    S3_ACCESS_KEY_ID: e.S3_ACCESS_KEY_ID || undefined,
    S3_SECRET_ACCESS_KEY: e.S3_SECRET_ACCESS_KEY || undefined,
  }
  const missing = Object.entries(given)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name)
  if (missing.length === 4) return undefined
  // Half a bucket would quietly keep images in the database instead: refuse to start.
  if (missing.length > 0) {
    throw new ConfigError(
      `Invalid configuration: S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together; missing ${missing.join(', ')}`,
    )
  }
  return {
    endpoint: (given.S3_ENDPOINT as string).replace(/\/+$/, ''),
    bucket: given.S3_BUCKET as string,
    region: e.S3_REGION || 'us-east-1',
    accessKeyId: given.S3_ACCESS_KEY_ID as string,
    secretAccessKey: given.S3_SECRET_ACCESS_KEY as string,
  }
}

function originOf(url: string, variable: string): string {
  try {
    return new URL(url).origin
  } catch {
    throw new ConfigError(`${variable} has an entry that is not a URL: ${url}`)
  }
}

/**
 * Reads the server's settings from environment variables, with the defaults of `.env.example`:
 * PORT 3000, HOST 0.0.0.0, DATA_DIR `.data`, PGlite unless DATABASE_URL, PUBLIC_URL
 * `http://localhost:PORT`, SERVE_DIST `dist` when that folder has an index.html (an explicitly
 * empty SERVE_DIST serves the API only), MAIL_FROM `Glow Rewards <no-reply@glowrewards.example>`,
 * the outbox unless SMTP_URL or all three TWILIO_* are set, the demo practice outside production
 * only (SEED_DEMO). Throws {@link ConfigError} naming a bad variable, in production without
 * STRIPE_SECRET_KEY unless ALLOW_TEST_PAYMENTS=true, and in production on PostgreSQL without
 * JWT_SECRET or DATA_ENCRYPTION_KEY.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  { cwd = process.cwd() }: { cwd?: string } = {},
): ServerConfig {
  const result = v.safeParse(EnvSchema, env)
  if (!result.success) {
    const problems = result.issues.map((issue) => {
      const variable = v.getDotPath(issue)
      return variable && !issue.message.startsWith(variable)
        ? `${variable}: ${issue.message}`
        : issue.message
    })
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`)
  }
  const e = result.output
  const publicUrl = (e.PUBLIC_URL || `http://localhost:${e.PORT}`).replace(/\/+$/, '')
  const extraOrigins = (e.ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map((origin) => originOf(origin, 'ALLOWED_ORIGINS'))
  let distDir: string | undefined
  if (e.SERVE_DIST === undefined) {
    const fallback = resolve(cwd, 'dist')
    distDir = existsSync(resolve(fallback, 'index.html')) ? fallback : undefined
  } else if (e.SERVE_DIST !== '') {
    distDir = resolve(cwd, e.SERVE_DIST)
  }
  const dataDir = e.DATA_DIR ?? '.data'
  const production = e.NODE_ENV === 'production'
  const stripeSecretKey = e.STRIPE_SECRET_KEY || undefined
  const allowTestPayments = e.ALLOW_TEST_PAYMENTS ?? false
  // Production on the test gateway would sign practices up for free: only on request.
  if (production && !stripeSecretKey && !allowTestPayments) {
    throw new ConfigError(
      'Invalid configuration: NODE_ENV=production needs STRIPE_SECRET_KEY to take card payments. ' +
        'Set ALLOW_TEST_PAYMENTS=true only if this server must run without charging cards.',
    )
  }
  const databaseUrl = e.DATABASE_URL || undefined
  const jwtSecret = e.JWT_SECRET || undefined
  const dataKey = e.DATA_ENCRYPTION_KEY || undefined
  if (production && databaseUrl) requireSharedSecrets({ jwtSecret, dataKey })
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: dataDir === 'memory' ? dataDir : resolve(cwd, dataDir),
    databaseUrl,
    databaseOwnerUrl: e.DATABASE_OWNER_URL || undefined,
    publicUrl,
    allowedOrigins: [...new Set([originOf(publicUrl, 'PUBLIC_URL'), ...extraOrigins])],
    production,
    jwtSecret,
    dataKey,
    distDir,
    hcaptchaSiteKey: e.HCAPTCHA_SITEKEY || undefined,
    supportEmail: e.SUPPORT_EMAIL?.trim() || undefined,
    smtpUrl: e.SMTP_URL || undefined,
    mailFrom: e.MAIL_FROM || DEFAULT_MAIL_FROM,
    twilio: twilioSettings(e),
    s3: s3Settings(e),
    trustProxy: e.TRUST_PROXY,
    seedDemo: e.SEED_DEMO ?? !production,
    stripeSecretKey,
    stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET || undefined,
    allowTestPayments,
    nextech: nextechSettings(e, production),
    nextechSyncMinutes: e.NEXTECH_SYNC_MINUTES,
    billingRunMinutes: e.BILLING_RUN_MINUTES,
  }
}
