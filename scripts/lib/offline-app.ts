import { createApp } from '#server/app.ts'
import { openDatabase } from '#server/db/client.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'

/**
 * The real app on PGlite in memory, with mail and SMS kept in the outbox and no network: what the
 * scripts that read the route declarations (the OpenAPI document, the browser's contract) build.
 * Close the database handle when done.
 */
export async function openOfflineApp(jwtSecret: string) {
  const handle = await openDatabase({ dataDir: 'memory' })
  const log = memoryLogger()
  const app = createApp({
    db: handle.db,
    mail: createOutboxMail(handle.db, { log }),
    sms: createOutboxSms(handle.db, { log }),
    config: {
      jwtSecret,
      publicUrl: 'http://localhost:3000',
      allowedOrigins: [],
      production: false,
    },
    log,
  })
  return { app, handle }
}
