import { defineConfig, devices } from '@playwright/test'
import { CHROMIUM_ARGS, chromiumPath } from '#tests/e2e/support/chromium.ts'
import { LOCAL_ORIGIN, PATHS_PORT, REMOTE_HOST_ARGS } from '#tests/paths/support/hosts.ts'

/**
 * The QA path replay (`npm run test:paths`): every path generated from the flow machines, replayed
 * in Debian's Chromium against the real server on a fresh temporary database. One worker: the
 * paths share one server, and the machine has two cores.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
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
    },
  },
})
