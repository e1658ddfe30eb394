import { defineConfig, devices } from '@playwright/test'
import { CHROMIUM_ARGS, chromiumPath } from '#scripts/lib/chromium.ts'

/**
 * The browser measurements of `npm run bench` that need the journeys' fixtures (a real server on a
 * copy of the seeded data folder, signed-in sessions): one worker, one test at a time, no retries.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../../.tmp/bench/test-results',
  globalSetup: '../../../tests/e2e/support/global-setup.ts',
  workers: 1,
  retries: 0,
  timeout: 900_000,
  reporter: [['list'], ['json']],
  use: {
    browserName: 'chromium',
    headless: true,
    trace: 'off',
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
})
