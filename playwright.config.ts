import { defineConfig, devices } from '@playwright/test'
import { CHROMIUM_ARGS, chromiumPath } from './scripts/lib/chromium.ts'
import { remoteHostArgs, WORKERS } from './tests/e2e/support/servers.ts'

/**
 * The end-to-end journeys. Each worker runs its own real server on a copy of one seeded data
 * folder (tests/e2e/support/servers.ts), so workers never see each other's data; the files are
 * shared out between them, and a file's tests run in order in one worker. `npm test` picks a free
 * range of ports and passes its start in E2E_PORT; E2E_WORKERS overrides the worker count (one per
 * core by default).
 */
export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  outputDir: '.tmp/test-results',
  globalSetup: './tests/e2e/support/global-setup.ts',
  fullyParallel: false,
  workers: WORKERS,
  retries: 0,
  // Safety nets, never waits: a busy machine (`npm run test:stress`) makes a journey slow, not wrong.
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    // The product honours prefers-reduced-motion (theme.ts): no fades, so no half-painted frames.
    reducedMotion: 'reduce',
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: chromiumPath({ headlessShell: true }),
      args: [...CHROMIUM_ARGS, ...remoteHostArgs(WORKERS)],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
})
