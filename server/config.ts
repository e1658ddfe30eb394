import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import * as v from 'valibot'

/** Everything the server reads from its environment (see `.env.example`). */
export type ServerConfig = {
  port: number
  host: string
  /** Home of the embedded PGlite database and the generated JWT secret, or `'memory'`. */
  dataDir: string
  /** A PostgreSQL server instead of PGlite. */
  databaseUrl?: string | undefined
  publicUrl: string
  /** Origins allowed in e-mailed links: PUBLIC_URL's plus ALLOWED_ORIGINS. */
  allowedOrigins: string[]
  production: boolean
  jwtSecret?: string | undefined
  /** The built SPA to serve; unset serves the API only. */
  distDir?: string | undefined
  /** Set when SMTP_URL is: e-mail delivery over SMTP is not wired yet (see the start warning). */
  smtpUrl?: string | undefined
  /** True when TWILIO_ACCOUNT_SID is set: SMS delivery through Twilio is not wired yet. */
  twilioConfigured: boolean
  /** TRUST_PROXY: the client address comes from the last X-Forwarded-For entry. */
  trustProxy?: boolean
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
  SERVE_DIST: v.optional(v.pipe(v.string(), v.trim())),
  SMTP_URL: optionalText,
  TWILIO_ACCOUNT_SID: optionalText,
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
})

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
 * empty SERVE_DIST serves the API only). Throws {@link ConfigError} naming a bad variable.
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
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: dataDir === 'memory' ? dataDir : resolve(cwd, dataDir),
    databaseUrl: e.DATABASE_URL || undefined,
    publicUrl,
    allowedOrigins: [...new Set([originOf(publicUrl, 'PUBLIC_URL'), ...extraOrigins])],
    production: e.NODE_ENV === 'production',
    jwtSecret: e.JWT_SECRET || undefined,
    distDir,
    smtpUrl: e.SMTP_URL,
    twilioConfigured: e.TWILIO_ACCOUNT_SID !== undefined,
    trustProxy: e.TRUST_PROXY,
  }
}
