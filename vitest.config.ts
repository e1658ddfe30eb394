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
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}', 'tests/flows/**/*.test.tsx'],
          setupFiles: ['tests/setup/vitest.setup.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
})
