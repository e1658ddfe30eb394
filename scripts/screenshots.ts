/**
 * `npm run screenshots`: the journeys and the QA path replay with SHOTS_DIR set to docs/screenshots,
 * so every checked screen (tests/e2e/support/screens.ts) leaves its picture at 1440 and 390 px.
 * `npm test` never takes them: a test run neither spends its time on pictures nor rewrites the
 * committed ones. Stage names as for `npm test` (`e2e`, `paths`) run one of the two. The pictures
 * come from the full Chromium (a person's browser), not the headless shell `npm test` prefers.
 */
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { findChromium } from '#scripts/lib/chromium.ts'

const stages = process.argv.slice(2)
const result = spawnSync(
  'npx',
  ['tsx', 'scripts/test.ts', ...(stages.length ? stages : ['e2e', 'paths'])],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      CHROMIUM_PATH: findChromium() ?? '',
      SHOTS_DIR: resolve('docs/screenshots'),
    },
  },
)
process.exit(result.status ?? 1)
