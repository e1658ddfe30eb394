import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { type AppType, createApp } from '#server/app.ts'
import { resolveJwtSecret } from '#server/auth/jwt.ts'
import type { ServerConfig } from '#server/config.ts'
import { type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { seedIfEmpty } from '#server/db/seed.ts'
import { consoleLogger, type Logger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/services/mail.ts'
import { createPostgresRateLimitStore } from '#server/services/rate-limit.ts'
import { createOutboxSms } from '#server/services/sms.ts'

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

/**
 * Boots the whole server: opens the database (PGlite under `dataDir`, or `databaseUrl`), applies
 * migrations, seeds an empty database, builds the app with the outbox mail and SMS services,
 * and listens on `host:port`. Used by `server/index.ts` and by the end-to-end harness.
 */
export async function startServer(
  config: ServerConfig,
  { log = consoleLogger }: { log?: Logger } = {},
): Promise<RunningServer> {
  if (config.smtpUrl) {
    log.warn('SMTP_URL is set, but SMTP delivery is not wired yet: e-mails go to the outbox.')
  }
  if (config.twilioConfigured) {
    log.warn('TWILIO_* is set, but Twilio delivery is not wired yet: SMS codes go to the outbox.')
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    const seeded = await seedIfEmpty(database.db, { publicUrl: config.publicUrl })
    const jwtSecret = resolveJwtSecret({ jwtSecret: config.jwtSecret, dataDir: config.dataDir })
    const app = createApp({
      db: database.db,
      mail: createOutboxMail(database.db, { log }),
      sms: createOutboxSms(database.db, { log }),
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
