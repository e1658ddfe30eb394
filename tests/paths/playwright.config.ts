import { defineConfig, devices } from '@playwright/test'
import { CHROMIUM_ARGS, chromiumPath } from '#scripts/lib/chromium.ts'
import { remoteHostArgs, WORKERS } from '#tests/e2e/support/servers.ts'

/**
 * The QA path replay (`npm run test:paths`): every path generated from the flow machines, replayed
 * in Debian's Chromium against the real server. Like the journeys, each worker has a server of its
 * own on a copy of one seeded data folder (tests/e2e/support/servers.ts).
 */
export default defineConfig({
  // The Playwright driver of each flow: tests/flows/<flow>/browser.spec.ts.
  testDir: '../flows',
  testMatch: '**/browser.spec.ts',
  outputDir: '../../.tmp/paths/test-results',
  globalSetup: '../e2e/support/global-setup.ts',
  // Every path stands alone (its own patient, appointment and offer; settings put back), so the
  // workers share out the paths one by one rather than a flow each: a flow of 17 paths on one
  // worker ended the replay with the other idle for over a minute.
  fullyParallel: true,
  workers: WORKERS,
  retries: 0,
  // Safety nets, never waits: a busy machine (`npm run test:stress`) makes a journey slow, not wrong.
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // PATHS_LIST=1 shows Playwright's own list instead of the per-path lines (for debugging).
  reporter: [
    process.env.PATHS_LIST ? ['list'] : ['./support/reporter.ts'],
    ...(process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['json'] as ['json']] : []),
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    // The product honours prefers-reduced-motion (theme.ts): no fades, so no half-painted frames.
    reducedMotion: 'reduce',
    screenshot: 'off',
    trace: 'off',
    launchOptions: {
      executablePath: chromiumPath({ headlessShell: true }),
      args: [...CHROMIUM_ARGS, ...remoteHostArgs(WORKERS)],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
})
