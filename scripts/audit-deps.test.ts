import { describe, expect, it } from 'vitest'
import { auditVerdict } from './audit-deps.ts'

const report = (counts: Record<string, number>, vulnerabilities = {}) =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: { vulnerabilities: counts } })

describe('the dependency audit verdict', () => {
  it('is clean with only low and moderate advisories', () => {
    expect(
      auditVerdict(report({ info: 0, low: 2, moderate: 1, high: 0, critical: 0, total: 3 })),
    ).toMatchObject({ kind: 'clean' })
  })

  it('fails on high or critical advisories and names the packages', () => {
    const verdict = auditVerdict(
      report(
        { low: 0, moderate: 0, high: 1, critical: 1, total: 2 },
        { hono: { severity: 'high' }, jose: { severity: 'critical' }, ms: { severity: 'low' } },
      ),
    )
    expect(verdict).toEqual({
      kind: 'vulnerable',
      counts: { low: 0, moderate: 0, high: 1, critical: 1, total: 2 },
      packages: ['hono (high)', 'jose (critical)'],
    })
  })

  it('says plainly when the advisory service could not be asked', () => {
    const refused = JSON.stringify({
      message:
        '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk',
      statusCode: 405,
      error: { summary: '', detail: '' },
    })
    expect(auditVerdict(refused)).toEqual({
      kind: 'unreachable',
      reason:
        '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk',
    })
    expect(auditVerdict('')).toMatchObject({ kind: 'unreachable' })
    expect(auditVerdict(JSON.stringify({ error: { code: 'ENOTFOUND' } }))).toEqual({
      kind: 'unreachable',
      reason: 'ENOTFOUND',
    })
  })
})
