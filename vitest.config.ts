import { availableParallelism } from 'node:os'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'
import { SlowFirstSequencer } from './tests/setup/slow-first-sequencer.ts'

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
          name: 'web',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}', 'tests/flows/**/*.test.tsx'],
          setupFiles: ['tests/setup/vitest.setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
})
