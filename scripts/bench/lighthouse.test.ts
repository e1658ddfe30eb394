import { describe, expect, it } from 'vitest'
import { type LighthouseResult, medianRun } from './lighthouse.ts'

function run(performance: number, accessibility = 100, lcpMs = 1000): LighthouseResult {
  return {
    path: '/signin',
    throttling: 'simulate',
    performance,
    accessibility,
    fcpMs: lcpMs,
    lcpMs,
    tbtMs: 0,
    cls: 0,
    failedAccessibilityAudits: accessibility < 100 ? ['color-contrast'] : [],
    reportPath: `lh-${performance}.json`,
  }
}

describe('median Lighthouse run', () => {
  it('keeps the run with the median performance and lists every score', () => {
    const chosen = medianRun([run(90, 100, 3000), run(97, 100, 1500), run(94, 100, 2000)])
    expect(chosen.performance).toBe(94)
    expect(chosen.lcpMs).toBe(2000)
    expect(chosen.performanceRuns).toEqual([90, 97, 94])
  })

  it('reports the lowest accessibility score seen, with its failures', () => {
    const chosen = medianRun([run(95), run(96, 92), run(97)])
    expect(chosen.accessibility).toBe(92)
    expect(chosen.failedAccessibilityAudits).toEqual(['color-contrast'])
  })
})
