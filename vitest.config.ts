import { availableParallelism } from 'node:os'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'
import { SlowFirstSequencer } from './tests/setup/slow-first-sequencer.ts'

/**
 * The web files that test what happens the first time a module is loaded (the router learning its
 * lazy areas, the Stripe script put into the page once): they get their own modules, where every
 * other web file shares them within a worker.
 */
const FIRST_LOAD_FILES = ['src/app/router.test.tsx', 'src/features/sign-up/stripe-mode.test.tsx']

const web = {
  environment: 'jsdom',
  setupFiles: ['tests/setup/vitest.setup.ts'],
  testTimeout: 90_000,
  hookTimeout: 90_000,
}

export default defineConfig({
  plugins: [react()],
  test: {
    restoreMocks: true,
    unstubGlobals: true,
    sequence: { sequencer: SlowFirstSequencer },
    // One worker per core: Vitest's default leaves one of the two cores of our machines idle.
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'domain/**/*.test.ts',
            'machines/**/*.test.ts',
            'server/**/*.test.ts',
            'scripts/**/*.test.ts',
            'tests/flows/**/*.test.ts',
          ],
          // Template databases, migrated and seeded once for the run (server/testing/db-templates.ts).
          globalSetup: ['tests/setup/vitest.global.ts'],
          // The node files share their modules within a worker instead of importing the server
          // anew for each file (two minutes of a run): none keeps state between files that
          // matters, and fake timers, mocks and stubbed globals are put back after each test.
          isolate: false,
          // Safety nets, not waits: a test ends as soon as what it waits for is observable. They
          // are wide because a server that migrates and seeds takes a minute on a machine whose
          // cores are busy (`npm run test:stress`), and a slow pass is not a failure.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          ...web,
          name: 'web',
          include: ['src/**/*.test.{ts,tsx}', 'tests/flows/**/*.test.tsx'],
          exclude: FIRST_LOAD_FILES,
          // Like the node files, the web files share their modules and one jsdom within a worker
          // (React, Mantine and the routes imported once, not once per file: 176 s of the web
          // files became 98 s). Testing Library unmounts after each test, the setup file is safe
          // to run again, and mocks and stubbed globals are put back.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { ...web, name: 'web (fresh modules)', include: FIRST_LOAD_FILES },
      },
    ],
  },
})
