import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createAdaptorServer } from '@hono/node-server'
import { type AppType, contextOf, createApp } from '#server/app.ts'
import { resolveJwtSecret } from '#server/auth/jwt.ts'
import { ConfigError, type ServerConfig } from '#server/config.ts'
import { type Database, type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { resolveDataKey } from '#server/db/data-key.ts'
import { DEMO_ADMIN, hasDemoAdmin, seedIfEmpty } from '#server/demo/seed.ts'
import { createDatabaseFileStore } from '#server/files/file-store.ts'
import { createS3FileStore, layeredFileStore } from '#server/files/s3-file-store.ts'
import { importUploadFiles } from '#server/files/upload-import.ts'
import { createExpiryJob, scheduleExpiryJob } from '#server/jobs/expiry-job.ts'
import { consoleLogger, type Logger } from '#server/lib/log.ts'
import { MAIL_TEMPLATES } from '#server/mail-templates.ts'
import { createOutboxMail, type MailService } from '#server/messaging/mail.ts'
import { createOutboundQueue } from '#server/messaging/outbound.ts'
import { createOutboxSms, type SmsService, scheduleOutboxSmsSweep } from '#server/messaging/sms.ts'
import { createSmtpMail, describeSmtpUrl } from '#server/messaging/smtp-mail.ts'
import { createTwilioSms } from '#server/messaging/twilio-sms.ts'
import { VERIFICATION_RULES } from '#server/messaging/verification.ts'
import { scheduleBilling } from '#server/modules/memberships/index.ts'
import { connectDemoPractice, scheduleNextechSync } from '#server/modules/nextech/index.ts'
import { databaseCatalog } from '#server/payments/catalog.ts'
import { createPaymentProvider, databaseGatewayStore } from '#server/payments/index.ts'
import { createStripeMemberPayments } from '#server/payments/member-gateway.ts'
import { isLoopbackHost } from '#server/security/loopback.ts'
import { createPostgresRateLimitStore } from '#server/security/rate-limit.ts'

/** A started server. */
export type RunningServer = {
  /** `http://localhost:PORT` (the port actually bound, also when PORT was 0). */
  url: string
  port: number
  app: AppType
  database: DatabaseHandle
  /** Whether this start seeded an empty database. */
  seeded: boolean
  /** Whether the demo practice's Admin exists (seeded now or before). */
  demo: boolean
  /** Stops accepting connections, ends open ones, then closes the database. */
  close(): Promise<void>
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error)
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve(server.address() as AddressInfo)
    })
  })
}

/** What {@link startServer} takes besides the configuration. */
export type StartOptions = {
  log?: Logger
  /** Where the Twilio REST API lives (tests point it at a local stub); Twilio's own by default. */
  twilioBaseUrl?: string
  /**
   * With `dataDir: 'memory'`, a copy of a migrated and seeded PGlite database to start from instead
   * of an empty one (tests that boot many servers: server/testing/db-templates.ts).
   */
  pgliteDump?: Blob | undefined
}

/**
 * The e-mail and SMS services the configuration asks for: SMTP when `smtpUrl` is set, Twilio when
 * `twilio` is, the outbox table otherwise. Logs which provider each one uses, never a secret.
 */
function deliveryServices(
  config: ServerConfig,
  db: Database,
  log: Logger,
  twilioBaseUrl: string | undefined,
): { mail: MailService; sms: SmsService } {
  // In production the outbox endpoint is off, so whatever goes there reaches nobody.
  const outboxNote = config.production
    ? 'the outbox table only (GET /api/dev/outbox is off in production)'
    : 'the development outbox (GET /api/dev/outbox)'
  const note = (message: string) => (config.production ? log.warn(message) : log.info(message))
  let mail: MailService
  if (config.smtpUrl) {
    mail = createSmtpMail({ url: config.smtpUrl, from: config.mailFrom, log })
    log.info(`E-mail: SMTP via ${describeSmtpUrl(config.smtpUrl)}, from ${config.mailFrom}`)
  } else {
    mail = createOutboxMail(db, { log })
    note(`E-mail: ${outboxNote}; set SMTP_URL to send real e-mail`)
  }
  let sms: SmsService
  if (config.twilio) {
    sms = createTwilioSms({ ...config.twilio, baseUrl: twilioBaseUrl, log })
    log.info(`SMS: Twilio, from ${config.twilio.from}`)
  } else {
    sms = createOutboxSms(db, {
      log,
      ...(config.production ? { production: { codeTtlMs: VERIFICATION_RULES.codeTtlMs } } : {}),
    })
    note(
      config.production
        ? `SMS: ${outboxNote}, codes kept as hashes until they expire; set TWILIO_* to send real text messages`
        : `SMS: ${outboxNote}; set TWILIO_* to send real text messages`,
    )
  }
  return { mail, sms }
}

/**
 * Makes sure `dataDir` exists and the server can write in it, or throws a {@link ConfigError}
 * whose sentence names the folder (a read-only or impossible DATA_DIR would otherwise surface as a
 * stack from deep inside PGlite).
 */
export function ensureDataDir(dataDir: string): void {
  const problem = (what: string, error: unknown) => {
    const code = (error as { code?: unknown })?.code
    return new ConfigError(
      `DATA_DIR ${dataDir} ${what}${typeof code === 'string' ? ` (${code})` : ''}. ` +
        'Set DATA_DIR to a folder this server may write to.',
    )
  }
  try {
    mkdirSync(dataDir, { recursive: true })
  } catch (error) {
    throw problem('does not exist and cannot be created', error)
  }
  const probe = join(dataDir, '.write-check')
  try {
    accessSync(dataDir, constants.W_OK)
    writeFileSync(probe, '')
    rmSync(probe, { force: true })
  } catch (error) {
    throw problem('is not writable', error)
  }
}

/**
 * Boots the whole server: opens the database (PGlite under `dataDir`, or `databaseUrl`), applies
 * migrations, seeds an empty database, moves the images of an older `dataDir/uploads` into it,
 * builds the app with the mail and SMS services the configuration chooses (SMTP and Twilio, else
 * the outbox), and listens on `host:port`. Used by `server/index.ts` and by the end-to-end harness.
 */
export async function startServer(
  config: ServerConfig,
  { log = consoleLogger, twilioBaseUrl, pgliteDump }: StartOptions = {},
): Promise<RunningServer> {
  if (config.dataDir !== 'memory') ensureDataDir(config.dataDir)
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    ownerUrl: config.databaseOwnerUrl,
    dataDir: config.dataDir,
    pgliteDump: config.dataDir === 'memory' ? pgliteDump : undefined,
    onRetry: (state, attempt, attempts) =>
      log.warn(
        `A transaction met a conflicting one (SQLSTATE ${state}) and runs again (attempt ${attempt + 1} of ${attempts})`,
        { state },
      ),
  })
  try {
    if (database.driver === 'postgres' && database.ownsAuditTable) {
      const say = (message: string) => (config.production ? log.warn(message) : log.info(message))
      say(
        'DATABASE_URL connects as the owner of the tables, so this server could disable the audit ' +
          "trail's triggers: set DATABASE_OWNER_URL for migrations and a role of its own for DATABASE_URL",
      )
    }
    const seedDemo = config.seedDemo ?? !config.production
    const seeded = await seedIfEmpty(database.db, {
      publicUrl: config.publicUrl,
      demo: seedDemo,
      // The demo's subscription lives on the test gateway; Stripe would not know it.
      testGateway: !config.stripeSecretKey?.trim(),
    })
    const demo = await hasDemoAdmin(database.db)
    if (demo && config.production) {
      log.warn(
        'The demo practice is in this production database (demo@example.com, whose password is ' +
          'published): remove it or change its password before real use.',
      )
    }
    // Uploads kept in DATA_DIR/uploads before migration 0030 move into the database, once.
    if (config.dataDir !== 'memory') {
      await importUploadFiles(database.db, join(config.dataDir, 'uploads'), log)
    }
    const jwtSecret = resolveJwtSecret({ jwtSecret: config.jwtSecret, dataDir: config.dataDir })
    const dataKey = resolveDataKey({ dataKey: config.dataKey, dataDir: config.dataDir })
    const payments = createPaymentProvider(
      { STRIPE_SECRET_KEY: config.stripeSecretKey },
      { catalog: databaseCatalog(database.db), store: databaseGatewayStore(database.db) },
    )
    if (payments.mode === 'test') {
      if (config.production) {
        log.warn(
          'TEST PAYMENTS IN PRODUCTION: ALLOW_TEST_PAYMENTS=true and no STRIPE_SECRET_KEY, so no ' +
            'card is ever charged. The test card form stays off in production; set ' +
            'STRIPE_SECRET_KEY to take payments.',
        )
      } else {
        log.info(
          'Payments: the built-in test gateway (test cards only); set STRIPE_SECRET_KEY for Stripe',
        )
      }
    }
    const delivery = deliveryServices(config, database.db, log, twilioBaseUrl)
    // New images go to the bucket when one is configured; those already in the database stay
    // there and are still served (decision record 019).
    const files = config.s3
      ? layeredFileStore(createS3FileStore(config.s3), createDatabaseFileStore(database.db))
      : undefined
    if (config.s3) {
      log.info(`Uploaded images: S3 bucket ${config.s3.bucket} at ${config.s3.endpoint}`)
    }
    const outbound = createOutboundQueue({
      db: database.db,
      ...delivery,
      log,
      publicUrl: config.publicUrl,
      templates: MAIL_TEMPLATES,
    })
    const app = createApp({
      db: database.db,
      ...delivery,
      outbound,
      config: {
        jwtSecret,
        publicUrl: config.publicUrl,
        allowedOrigins: config.allowedOrigins,
        production: config.production,
        distDir: config.distDir,
        hcaptchaSiteKey: config.hcaptchaSiteKey,
        supportEmail: config.supportEmail,
        trustProxy: config.trustProxy,
        dataKey,
        nextech: config.nextech,
      },
      payments,
      // Patients pay the practice through Stripe Connect when the server has a Stripe key.
      ...(config.stripeSecretKey
        ? {
            memberPayments: createStripeMemberPayments({
              secretKey: config.stripeSecretKey,
              webhookSecret: config.stripeWebhookSecret ?? '',
            }),
          }
        : {}),
      log,
      ...(files ? { files } : {}),
      // Several instances may share a PostgreSQL server: their rate-limit counters must be shared
      // too. Embedded PGlite belongs to this one process, where counters in memory suffice.
      ...(database.driver === 'postgres'
        ? { rateLimitStore: createPostgresRateLimitStore(database.db) }
        : {}),
    })
    const server = createAdaptorServer({ fetch: app.fetch }) as Server
    const address = await listen(server, config.port, config.host)
    if (!config.production && !isLoopbackHost(config.host)) {
      log.warn(
        `DEVELOPMENT MODE on ${config.host}:${address.port}, reachable from other machines: ` +
          'set NODE_ENV=production for a real deployment, or HOST=127.0.0.1 to keep it on this ' +
          'machine. The development outbox answers this machine (loopback) only.',
      )
    }
    // Messages left by an earlier run (or due for a retry) go out now, and retries keep going.
    outbound.start()
    // The daily points job: expiries and reminders, now and every day (idempotent per day).
    const stopPointsJob = scheduleExpiryJob(
      createExpiryJob({
        db: database.db,
        outbound,
        publicUrl: config.publicUrl,
        now: () => new Date(),
        log,
      }),
      { log },
    )
    // Outside production the demo practice just seeded is connected to the Nextech sandbox.
    if (seeded && demo) await connectDemoPractice(contextOf(app), DEMO_ADMIN.email)
    // Every connected practice syncs with Nextech every NEXTECH_SYNC_MINUTES (0: only on demand).
    const stopNextechSync = scheduleNextechSync(contextOf(app), config.nextechSyncMinutes ?? 5)
    // Membership renewals, retries and notices: now and every BILLING_RUN_MINUTES.
    const stopBilling = scheduleBilling(contextOf(app), config.billingRunMinutes ?? 15)
    // Without Twilio in production, codes leave the outbox table once they expire.
    const stopOutboxSweep =
      config.production && !config.twilio
        ? scheduleOutboxSmsSweep({
            db: database.db,
            log,
            codeTtlMs: VERIFICATION_RULES.codeTtlMs,
          })
        : async () => {}
    let closing: Promise<void> | undefined
    const close = () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          // Keep-alive connections would hold close() open; idle ones go now, busy ones soon.
          server.closeIdleConnections()
          setTimeout(() => server.closeAllConnections(), 3000).unref()
        })
        await stopPointsJob()
        await stopNextechSync()
        await stopBilling()
        await outbound.stop()
        await stopOutboxSweep()
        await database.close()
      })()
      return closing
    }
    return {
      url: `http://localhost:${address.port}`,
      port: address.port,
      app,
      database,
      seeded,
      demo,
      close,
    }
  } catch (error) {
    await database.close().catch(() => {})
    throw error
  }
}
