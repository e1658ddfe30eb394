/**
 * Boot only: read the environment, start the server, print where it runs, stop cleanly on
 * SIGINT/SIGTERM. Everything else lives in start.ts (startServer) and app.ts (createApp).
 */
import { loadConfig } from '#server/config.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { consoleLogger as log } from '#server/lib/log.ts'
import { startServer } from '#server/start.ts'

// The signals are heard from the first moment: the server answers /api/health while it is still
// starting (connecting the demo practice, its first Nextech sync), and a SIGTERM then, with Node's
// default handler, ended the process mid-sync and left the run `running` in the database.
let stopping = false
let started: Awaited<ReturnType<typeof startServer>> | undefined
let startedSignal: string | undefined
const shutDown = (server: Awaited<ReturnType<typeof startServer>>, signal: string) => {
  log.info(`${signal} received, shutting down…`)
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      log.error('Glow Rewards did not shut down cleanly', error)
      process.exit(1)
    },
  )
}
const stop = (signal: string) => {
  if (stopping) {
    // A second Ctrl+C means "now".
    process.exit(1)
  }
  stopping = true
  // Still starting: the shutdown waits for the start to finish (below).
  if (started) shutDown(started, signal)
  else startedSignal = signal
}
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))

try {
  const config = loadConfig()
  const server = await startServer(config, { log })
  started = server
  log.info(`Glow Rewards is running at ${server.url}`)
  // A password in a production log is a password in every log collector: outside production only.
  if (server.demo && !config.production) {
    log.info(`Demo sign-in: ${DEMO_ADMIN.email} / ${DEMO_ADMIN.password}`)
  }
  if (!config.production) {
    log.info(`Outbox (SMS codes and e-mails): ${server.url}/api/dev/outbox`)
  }
  if (startedSignal) shutDown(server, startedSignal)
} catch (error) {
  // A configuration problem is a sentence for the operator; anything else also gets its
  // (redacted) stack in the log.
  const sentence = `Glow Rewards could not start: ${error instanceof Error ? error.message : String(error)}`
  if (error instanceof Error && error.name !== 'ConfigError') log.error(sentence, error)
  else log.error(sentence)
  process.exit(1)
}
