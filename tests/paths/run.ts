/**
 * `npm run test:paths`: replays every QA path in Chromium against the real server on a fresh
 * temporary database (see playwright.config.ts beside this file). Extra arguments go to
 * Playwright, e.g. `npm run test:paths -- sign-up` for one flow.
 */
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { findChromium } from '#tests/e2e/support/chromium.ts'

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

const chromium = findChromium()
if (!chromium) {
  console.error(
    'No Chromium found, and the QA path replay needs one. Install it with ' +
      '`apt-get update && apt-get install -y chromium` (Debian/Ubuntu), or set CHROMIUM_PATH.',
  )
  process.exit(1)
}

const port = process.env.PATHS_PORT ?? String(await freePort())
const result = spawnSync(
  'npx',
  ['playwright', 'test', '-c', 'tests/paths/playwright.config.ts', ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, PATHS_PORT: port, CHROMIUM_PATH: chromium } },
)
process.exit(result.status ?? 1)
