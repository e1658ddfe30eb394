/**
 * `npm run api:contract`: writes src/api/contract.gen.ts, the browser's types of each route's JSON
 * body and success answer, from the route declarations of the real app (built here as
 * scripts/openapi-lint.ts builds it: PGlite in memory, no network). See server/openapi/api-contract.ts.
 */
import { writeFileSync } from 'node:fs'
import { createApp } from '#server/app.ts'
import { openDatabase } from '#server/db/client.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'
import { API_CONTRACT_FILE, apiContractText } from '#server/openapi/api-contract.ts'

const handle = await openDatabase({ dataDir: 'memory' })
const log = memoryLogger()
const app = createApp({
  db: handle.db,
  mail: createOutboxMail(handle.db, { log }),
  sms: createOutboxSms(handle.db, { log }),
  config: {
    jwtSecret: 'api-contract-secret-that-is-long-enough-0123456789',
    publicUrl: 'http://localhost:3000',
    allowedOrigins: [],
    production: false,
  },
  log,
})
try {
  writeFileSync(API_CONTRACT_FILE, await apiContractText(app.routes))
} finally {
  await handle.close()
}
console.log(`Wrote ${API_CONTRACT_FILE}`)
