/**
 * `npm run points-job`: runs the daily points job once (docs/decisions/012-patient-email.md) on the
 * database the server would use (DATABASE_URL, else the PGlite folder under DATA_DIR: stop the
 * server first, an embedded database has one user at a time). It posts the expiries of lapsed
 * lots and queues the 30- and 7-day reminders; the server's worker sends them. Running it again
 * the same day posts and queues nothing new. The server also runs it at start and daily.
 */
import { loadConfig } from '#server/config.ts'
import { openDatabase } from '#server/db/client.ts'
import { createExpiryJob } from '#server/jobs/expiry-job.ts'
import { consoleLogger } from '#server/lib/log.ts'
import { enqueueMessage } from '#server/messaging/outbound.ts'

try {
  const config = loadConfig({ ...process.env, ALLOW_TEST_PAYMENTS: 'true' })
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    const now = () => new Date()
    const job = createExpiryJob({
      db: database.db,
      // The queue only: the server's worker sends what this run queued.
      outbound: { enqueue: (tx, message) => enqueueMessage(tx, message, now()), kick() {} },
      publicUrl: config.publicUrl,
      now,
      log: consoleLogger,
    })
    const { expired, reminders } = await job.run()
    console.log(`Points job done: ${expired} lots expired, ${reminders} reminders queued`)
  } finally {
    await database.close()
  }
} catch (error) {
  console.error(
    `The points job could not run: ${error instanceof Error ? error.message : String(error)}`,
  )
  process.exitCode = 2
}
