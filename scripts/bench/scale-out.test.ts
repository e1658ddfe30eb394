import { describe, expect, it } from 'vitest'
import { formatScaleOutTable, type ScaleOutRun } from './scale-out.ts'

const run = (processes: number, extra: Partial<ScaleOutRun> = {}): ScaleOutRun => ({
  processes,
  requests: 2000,
  concurrency: 16,
  seconds: 50,
  requestsPerSecond: 40,
  p50Ms: 200,
  p95Ms: 1200.25,
  serverErrors: 0,
  otherFailures: 0,
  mix: { 'sign-in': 200, search: 600, profile: 600, visit: 400, redemption: 200 },
  failures: {},
  ...extra,
})

describe('the scale-out table', () => {
  it('puts the process counts side by side with their throughput, p95 and errors', () => {
    const table = formatScaleOutTable({
      runs: [run(1), run(2, { serverErrors: 1, failures: { 'visit 500': 1 } })],
    })
    const lines = table.split('\n').map((line) => line.split('|').map((cell) => cell.trim()))
    expect(lines[0]).toEqual(['', '1 process', '2 processes'])
    expect(lines).toContainEqual(['requests per second', '40.0', '40.0'])
    expect(lines).toContainEqual(['p95', '1200.3 ms', '1200.3 ms'])
    expect(lines).toContainEqual(['5xx answers', '0', '1'])
    expect(lines).toContainEqual(['failures by kind', 'none', 'visit 500: 1'])
  })
})
