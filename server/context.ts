import type { Context } from 'hono'
import type { Role } from '#domain/permissions.ts'
import type { AuditLog } from '#server/audit/audit.ts'
import type { Database } from '#server/db/client.ts'
import type { FileStore } from '#server/files/file-store.ts'
import type { Logger } from '#server/lib/log.ts'
import type { MailService } from '#server/messaging/mail.ts'
import type { OutboundQueue } from '#server/messaging/outbound.ts'
import type { SmsService } from '#server/messaging/sms.ts'
import type { NextechConnector } from '#server/nextech/connector.ts'
import type { MemberPayments } from '#server/payments/member-gateway.ts'
import type { PaymentProvider } from '#server/payments/provider.ts'
import type { HashingGate } from '#server/security/passwords.ts'
import type { RateLimitStore } from '#server/security/rate-limit.ts'

/** The signed-in user as the session middleware sets it on every protected request. */
export type AuthUser = {
  id: number
  practice_id: number
  access_rights: Role
  email: string
}

/** Settings the app reads; built from the environment by server/config.ts, or by tests. */
export type AppConfig = {
  /** HS256 secret for session tokens. */
  jwtSecret: string
  /** Where users reach the app, e.g. `http://localhost:3000`; e-mailed links start with it. */
  publicUrl: string
  /** Origins that may appear in links the server e-mails (PUBLIC_URL's origin is one of them). */
  allowedOrigins: string[]
  /** Production turns HSTS on and the development outbox endpoint off. */
  production: boolean
  /** The built SPA to serve next to the API; unset serves the API only. */
  distDir?: string | undefined
  /** The hCaptcha site key the SPA's pages announce (HCAPTCHA_SITEKEY); unset: the build's own. */
  hcaptchaSiteKey?: string | undefined
  /** The footer's support address the SPA's pages announce (SUPPORT_EMAIL); unset: the build's own. */
  supportEmail?: string | undefined
  /**
   * A folder to keep uploaded files in instead of the database (`uploads.storage_key` is relative
   * to it): one process's disk, for tests of the disk store. Unset, as the server runs: the
   * database (`upload_contents`), unless `AppDeps.files` says otherwise.
   */
  uploadsDir?: string | undefined
  /**
   * Take the client's address from the last `X-Forwarded-For` entry (TRUST_PROXY): only behind
   * exactly one reverse proxy that appends it. Otherwise the socket's address counts.
   */
  trustProxy?: boolean | undefined
  /**
   * Nextech's sign-in and API addresses (NEXTECH_TOKEN_URL, NEXTECH_API_URL); unset outside
   * production: the built-in Nextech sandbox, answered in this process and served under
   * `/nextech-sandbox`.
   */
  nextech?: { tokenUrl: string; apiUrl: string } | undefined
  /**
   * The 32-byte key that seals secrets at rest (Nextech credentials); see
   * server/db/data-key.ts. Unset: a random key for this app (tests).
   */
  dataKey?: Buffer | undefined
}

/** Everything `createApp` needs, injected so that tests and other servers can swap any part. */
export type AppDeps = {
  db: Database
  mail: MailService
  sms: SmsService
  config: AppConfig
  /** The clock (tests move it to check expiries). */
  now?: () => Date
  /** Server-side log; defaults to the console. */
  log?: Logger
  /** Card payments; defaults to Stripe when STRIPE_SECRET_KEY is set, else the test gateway. */
  payments?: PaymentProvider
  /**
   * The practice's patients' payments (memberships, Stripe Connect); defaults to Stripe Connect
   * when STRIPE_SECRET_KEY is set, else the test gateway's connected accounts.
   */
  memberPayments?: MemberPayments
  /**
   * Where rate-limit counters live; defaults to memory (one instance). Instances behind a load
   * balancer share `createPostgresRateLimitStore(db)`.
   */
  rateLimitStore?: RateLimitStore
  /**
   * The durable queue every e-mail and SMS leaves through (sent by `mail` and `sms`); defaults to
   * one over `db`. The server starts its polling; tests drain it.
   */
  outbound?: OutboundQueue
  /** Where argon2 work waits its turn; defaults to the process's shared gate. */
  hashing?: HashingGate
  /** Where uploaded files' bytes live; defaults to the database (or `config.uploadsDir`). */
  files?: FileStore
  /** How Nextech is reached; defaults to `config.nextech`, or the built-in sandbox without it. */
  nextech?: NextechConnector
}

/** {@link AppDeps} with the defaults filled in: what every route factory receives. */
export type ServerContext = AppDeps & {
  /** The configuration with its data key always present. */
  config: AppConfig & { dataKey: Buffer }
  now: () => Date
  log: Logger
  payments: PaymentProvider
  memberPayments: MemberPayments
  rateLimitStore: RateLimitStore
  outbound: OutboundQueue
  hashing: HashingGate
  files: FileStore
  nextech: NextechConnector
  /** The caller's address (socket, or the trusted proxy's `X-Forwarded-For`). */
  clientIp: (c: Context) => string
  /** The append-only audit trail of security events. */
  audit: AuditLog
}

/** Hono's environment for our routes: the variables middleware sets. */
export type AppEnv = { Variables: { user: AuthUser } }
