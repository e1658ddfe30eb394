import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { type AppType, createApp } from '#server/app.ts'
import { resolveJwtSecret } from '#server/auth/jwt.ts'
import type { ServerConfig } from '#server/config.ts'
import { type Database, type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { seedIfEmpty } from '#server/db/seed.ts'
import { consoleLogger, type Logger } from '#server/lib/log.ts'
import { createOutboxMail, type MailService } from '#server/services/mail.ts'
import { createPostgresRateLimitStore } from '#server/services/rate-limit.ts'
import { createOutboxSms, type SmsService } from '#server/services/sms.ts'
import { createSmtpMail, describeSmtpUrl } from '#server/services/smtp-mail.ts'
import { createTwilioSms } from '#server/services/twilio-sms.ts'

/** A started server. */
export type RunningServer = {
  /** `http://localhost:PORT` (the port actually bound, also when PORT was 0). */
  url: string
  port: number
  app: AppType
  database: DatabaseHandle
  /** Whether this start seeded an empty database. */
  seeded: boolean
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
    sms = createOutboxSms(db, { log })
    note(`SMS: ${outboxNote}; set TWILIO_* to send real text messages`)
  }
  return { mail, sms }
}

/**
 * Boots the whole server: opens the database (PGlite under `dataDir`, or `databaseUrl`), applies
 * migrations, seeds an empty database, builds the app with the mail and SMS services the
 * configuration chooses (SMTP and Twilio, else the outbox), and listens on `host:port`. Used by `server/index.ts` and by the end-to-end harness.
 */
export async function startServer(
  config: ServerConfig,
  { log = consoleLogger, twilioBaseUrl }: StartOptions = {},
): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    const seeded = await seedIfEmpty(database.db, { publicUrl: config.publicUrl })
    const jwtSecret = resolveJwtSecret({ jwtSecret: config.jwtSecret, dataDir: config.dataDir })
    const app = createApp({
      db: database.db,
      ...deliveryServices(config, database.db, log, twilioBaseUrl),
      config: {
        jwtSecret,
        publicUrl: config.publicUrl,
        allowedOrigins: config.allowedOrigins,
        production: config.production,
        distDir: config.distDir,
        trustProxy: config.trustProxy,
      },
      log,
      // Several instances may share a PostgreSQL server: their rate-limit counters must be shared
      // too. Embedded PGlite belongs to this one process, where counters in memory suffice.
      ...(database.driver === 'postgres'
        ? { rateLimitStore: createPostgresRateLimitStore(database.db) }
        : {}),
    })
    const server = createAdaptorServer({ fetch: app.fetch }) as Server
    const address = await listen(server, config.port, config.host)
    let closing: Promise<void> | undefined
    const close = () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          // Keep-alive connections would hold close() open; idle ones go now, busy ones soon.
          server.closeIdleConnections()
          setTimeout(() => server.closeAllConnections(), 3000).unref()
        })
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
      close,
    }
  } catch (error) {
    await database.close().catch(() => {})
    throw error
  }
}
