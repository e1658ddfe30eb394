import { defineConfig, devices } from '@playwright/test'
import { CHROMIUM_ARGS, chromiumPath } from '#scripts/lib/chromium.ts'
import { LOCAL_ORIGIN, PATHS_PORT, REMOTE_HOST_ARGS } from '#tests/paths/support/hosts.ts'

/**
 * The QA path replay (`npm run test:paths`): every path generated from the flow machines, replayed
 * in Debian's Chromium against the real server on a fresh temporary database. One worker: the
 * paths share one server, and the machine has two cores.
 */
export default defineConfig({
  // The Playwright driver of each flow: tests/flows/<flow>/browser.spec.ts.
  testDir: '../flows',
  testMatch: '**/browser.spec.ts',
  outputDir: '../../.tmp/paths/test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // PATHS_LIST=1 shows Playwright's own list instead of the per-path lines (for debugging).
  reporter: [
    process.env.PATHS_LIST ? ['list'] : ['./support/reporter.ts'],
    ...(process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['json'] as ['json']] : []),
  ],
  use: {
    baseURL: LOCAL_ORIGIN,
    browserName: 'chromium',
    headless: true,
    screenshot: 'off',
    trace: 'off',
    launchOptions: {
      executablePath: chromiumPath(),
      args: [...CHROMIUM_ARGS, ...REMOTE_HOST_ARGS],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
  webServer: {
    command: 'npx tsx tests/paths/support/serve.ts',
    cwd: '../..',
    url: `${LOCAL_ORIGIN}/api/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      PORT: String(PATHS_PORT),
      HOST: '127.0.0.1',
      PUBLIC_URL: LOCAL_ORIGIN,
      NODE_ENV: 'test',
      // Every replay comes from 127.0.0.1: the per-address limits of public calls would stop the
      // replay, not an attacker. Their own tests run against the defaults in-process.
      SMS_PER_ADDRESS_HOURLY: '100000',
      SMS_HOURLY_BUDGET: '100000',
      PROMO_LOOKUPS_PER_ADDRESS: '100000',
    },
  },
})
