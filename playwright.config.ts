import { defineConfig, devices } from '@playwright/test'
import { CHROMIUM_ARGS, chromiumPath } from './scripts/lib/chromium.ts'

// `npm test` picks a free port and passes it in E2E_PORT; a fixed fallback serves a direct
// `npx playwright test`. The server gets a fresh temporary DATA_DIR every run (support/serve.ts).
const port = Number(process.env.E2E_PORT ?? 4310)
const baseURL = `http://127.0.0.1:${port}`

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  outputDir: '.tmp/test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    baseURL,
    browserName: 'chromium',
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
  webServer: {
    command: 'npx tsx tests/e2e/support/serve.ts',
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseURL,
      NODE_ENV: 'test',
      // Every journey comes from 127.0.0.1: the per-address limits of public calls would stop the
      // suite, not an attacker. Their own tests run against the defaults in-process.
      SMS_PER_ADDRESS_HOURLY: '100000',
      SMS_HOURLY_BUDGET: '100000',
      PROMO_LOOKUPS_PER_ADDRESS: '100000',
    },
  },
})
