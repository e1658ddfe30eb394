/**
 * Vitest's file order, with the slowest files first. Vitest runs the files it has timed before
 * longest first, but a fresh clone (CI) has no timings, and then a file of a minute that happens
 * to start last keeps one worker busy after the other is done. The files below take 15 s or more
 * each on our machines (they start servers and child processes, or send thousands of requests);
 * `npm test` prints every file's time, so the list can follow it.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const SLOWEST = [
  // Two server processes, a mail server held past a lease, a kill -9 and its lease: two minutes.
  'server/scale/outbound.two-process.test.ts',
  'server/start.test.ts',
  'server/security/production-defaults.security.test.ts',
  'scripts/backup.test.ts',
  'server/security/bad-input.security.test.ts',
  'server/security/restart.security.test.ts',
  'server/openapi/contract-fuzz.test.ts',
  'server/security/rate-limits.security.test.ts',
  'server/modules/ledger/service.test.ts',
  'server/security/sign-in-lockout.security.test.ts',
  'tests/flows/sign-up/view.test.tsx',
]

function rank(spec: TestSpecification): number {
  const index = SLOWEST.findIndex((path) => spec.moduleId.endsWith(path))
  return index === -1 ? SLOWEST.length : index
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    // Array.prototype.sort is stable: the rest keeps Vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
