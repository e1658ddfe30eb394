/**
 * `npm run test:paths`: replays every QA path in Chromium against the real server, one per worker
 * on a copy of a freshly seeded database (see playwright.config.ts beside this file). Extra
 * arguments go to Playwright, e.g. `npm run test:paths -- sign-up` for one flow.
 */
import { spawnSync } from 'node:child_process'
import { findChromium } from '#scripts/lib/chromium.ts'
import { freePortRange } from '#scripts/lib/free-port.ts'

const chromium = findChromium({ headlessShell: true })
if (!chromium) {
  console.error(
    'No Chromium found, and the QA path replay needs one. Install it with ' +
      '`apt-get update && apt-get install -y chromium` (Debian/Ubuntu), or set CHROMIUM_PATH.',
  )
  process.exit(1)
}

const port = process.env.E2E_PORT ?? String(await freePortRange(8))
const result = spawnSync(
  'npx',
  ['playwright', 'test', '-c', 'tests/paths/playwright.config.ts', ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, E2E_PORT: port, CHROMIUM_PATH: chromium } },
)
process.exit(result.status ?? 1)
