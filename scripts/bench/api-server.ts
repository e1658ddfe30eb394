/**
 * The API server the benchmark loads: the real `createApp` on PGlite in DATA_DIR, seeded like a
 * first `npm start`, serving on HOST:PORT, with two differences: the rate limiter's store never
 * refuses (unlimited-store.ts), so that load from one address measures the work, not 429s; and
 * `GET /__bench/cpu` tells the process's CPU time (cpu-endpoint.ts).
 * Started by scripts/bench/api.ts; not for anything else.
 */
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import { createApp } from '#server/app.ts'
import { resolveJwtSecret } from '#server/auth/jwt.ts'
import { openDatabase } from '#server/db/client.ts'
import { seedIfEmpty } from '#server/demo/seed.ts'
import type { Logger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'
import { answerCpu } from './cpu-endpoint.ts'
import { createUnlimitedRateLimitStore } from './unlimited-store.ts'

const port = Number(process.env.PORT)
const host = process.env.HOST ?? '127.0.0.1'
const dataDir = process.env.DATA_DIR
if (!port || !dataDir) throw new Error('PORT and DATA_DIR are required')
const publicUrl = `http://${host}:${port}`

// Request logs would cost more than some of the requests measured.
const log: Logger = { info: () => {}, warn: () => {}, error: (m, e) => console.error(m, e) }

mkdirSync(dataDir, { recursive: true })
const database = await openDatabase({ dataDir })
await seedIfEmpty(database.db, { publicUrl })
const app = createApp({
  db: database.db,
  mail: createOutboxMail(database.db, { log }),
  sms: createOutboxSms(database.db, { log }),
  config: {
    jwtSecret: resolveJwtSecret({ dataDir }),
    publicUrl,
    allowedOrigins: [publicUrl],
    production: true,
  },
  log,
  rateLimitStore: createUnlimitedRateLimitStore(),
})
// As @hono/node-server's createAdaptorServer does, plus the benchmark's CPU reading.
const listener = getRequestListener(app.fetch)
const server = createServer((request, response) => {
  if (!answerCpu(request, response)) void listener(request, response)
})
server.listen(port, host)
const stop = () => server.close(() => void database.close().then(() => process.exit(0)))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
