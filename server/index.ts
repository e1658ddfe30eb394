/**
 * Boot only: read the environment, start the server, print where it runs, stop cleanly on
 * SIGINT/SIGTERM. Everything else lives in start.ts (startServer) and app.ts (createApp).
 */
import { loadConfig } from '#server/config.ts'
import { DEMO_ADMIN } from '#server/db/seed.ts'
import { startServer } from '#server/start.ts'

try {
  const config = loadConfig()
  const server = await startServer(config)
  console.log(`Glow Rewards is running at ${server.url}`)
  console.log(`Demo sign-in: ${DEMO_ADMIN.email} / ${DEMO_ADMIN.password}`)
  console.log(`Outbox (SMS codes and e-mails): ${server.url}/api/dev/outbox`)

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      // A second Ctrl+C means "now".
      process.exit(1)
    }
    stopping = true
    console.log(`${signal} received, shutting down…`)
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Glow Rewards did not shut down cleanly:', error)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
} catch (error) {
  console.error(
    `Glow Rewards could not start: ${error instanceof Error ? error.message : String(error)}`,
  )
  if (error instanceof Error && error.name !== 'ConfigError' && error.stack) {
    console.error(error.stack)
  }
  process.exit(1)
}
