/**
 * `npm start`: everything a newcomer needs after `npm install`. Builds the SPA when dist/ is
 * missing or stale, then boots the API server, which serves dist/ and /api on PORT (default 3000)
 * with PGlite under DATA_DIR (default .data/) unless DATABASE_URL is set.
 */
import { ensureBuilt } from './lib/build.ts'

try {
  await ensureBuilt()
} catch (error) {
  console.error('The web app could not be built:', error instanceof Error ? error.message : error)
  process.exit(1)
}
await import('#server/index.ts')
