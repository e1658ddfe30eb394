/**
 * `npm run audit:deps`: `npm audit` of the production dependencies (`--omit=dev`) at high severity.
 *
 * Why production only: the server and the SPA bundle are built from `dependencies`; dev tools
 * (Vitest, Playwright, Biome, drizzle-kit) run on developer and CI machines against our own code
 * and never face users or patient data, and their advisories (mostly ReDoS in CLI parsers) would
 * block releases without making the product safer. `AUDIT_ALL=1` audits everything.
 *
 * Exit codes: 0 no high or critical advisory; 1 some (listed); 2 the advisory service could not be
 * asked (network error, or a registry without the audit endpoint): dependencies were NOT audited.
 * `npm test` counts 2 as a skipped stage with this message, so an unreachable service cannot fail
 * CI, while `npm run audit:deps` on its own still fails loudly.
 */
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'

/** The verdict on `npm audit --json` output. */
export type AuditVerdict =
  | { kind: 'clean'; counts: Record<string, number> }
  | { kind: 'vulnerable'; counts: Record<string, number>; packages: string[] }
  | { kind: 'unreachable'; reason: string }

type AuditJson = {
  metadata?: { vulnerabilities?: Record<string, number> }
  vulnerabilities?: Record<string, { severity?: string }>
  message?: string
  statusCode?: number
  error?: { code?: string; summary?: string }
}

const SERIOUS = new Set(['high', 'critical'])

/** Reads `npm audit --json` output: clean, vulnerable at high or critical, or not audited. */
export function auditVerdict(output: string): AuditVerdict {
  let json: AuditJson
  try {
    json = JSON.parse(output) as AuditJson
  } catch {
    return { kind: 'unreachable', reason: 'npm audit printed no JSON report' }
  }
  const counts = json.metadata?.vulnerabilities
  if (!counts) {
    const reason =
      json.message || json.error?.summary || json.error?.code || 'no report from the audit service'
    return { kind: 'unreachable', reason }
  }
  const packages = Object.entries(json.vulnerabilities ?? {})
    .filter(([, entry]) => SERIOUS.has(entry.severity ?? ''))
    .map(([name, entry]) => `${name} (${entry.severity})`)
  const serious = (counts.high ?? 0) + (counts.critical ?? 0)
  return serious > 0 || packages.length > 0
    ? { kind: 'vulnerable', counts, packages }
    : { kind: 'clean', counts }
}

function main(): number {
  const all = process.env.AUDIT_ALL === '1'
  const args = ['audit', '--json', '--audit-level=high', ...(all ? [] : ['--omit=dev'])]
  console.log(`npm ${args.join(' ')}`)
  const result = spawnSync('npm', args, { encoding: 'utf8', timeout: 120_000 })
  const verdict = auditVerdict(result.stdout ?? '')
  switch (verdict.kind) {
    case 'clean':
      console.log(
        `✔ No high or critical advisories in the ${all ? '' : 'production '}dependencies (${Object.entries(
          verdict.counts,
        )
          .map(([level, n]) => `${level} ${n}`)
          .join(', ')}).`,
      )
      return 0
    case 'vulnerable':
      console.error('✖ High or critical advisories:')
      for (const name of verdict.packages) console.error(`  - ${name}`)
      console.error('  Run `npm audit` for the details and `npm audit fix` where a fix exists.')
      return 1
    case 'unreachable':
      console.error(
        `✖ Dependencies were NOT audited: the advisory service could not be asked (${verdict.reason}).\n` +
          '  Check the network and the registry (npm config get registry); the registry must offer\n' +
          '  /-/npm/v1/security/advisories/bulk.',
      )
      return 2
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(main())
}
