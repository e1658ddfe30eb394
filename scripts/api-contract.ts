/**
 * `npm run api:contract`: writes src/api/contract.gen.ts, the browser's types of each route's JSON
 * body and success answer, from the route declarations of the real app (built as
 * scripts/openapi-lint.ts builds it, by scripts/lib/offline-app.ts: PGlite in memory, no network).
 * See server/openapi/api-contract.ts.
 */
import { writeFileSync } from 'node:fs'
import { API_CONTRACT_FILE, apiContractText } from '#server/openapi/api-contract.ts'
import { openOfflineApp } from './lib/offline-app.ts'

const { app, handle } = await openOfflineApp('api-contract-secret-that-is-long-enough-0123456789')
try {
  writeFileSync(API_CONTRACT_FILE, await apiContractText(app.routes))
} finally {
  await handle.close()
}
console.log(`Wrote ${API_CONTRACT_FILE}`)
