/**
 * The 10,000-row patient import in Chromium (scripts/bench/browser/import.spec.ts), run through
 * Playwright with the journeys' fixtures: a real server on a copy of the seeded data folder. The
 * spec writes its figures as the `10k import` annotation of its JSON report, read back here.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { chromiumPath } from '#scripts/lib/chromium.ts'
import { freePortRange } from '#scripts/lib/free-port.ts'
import { ROOT } from './processes.ts'

/** What the 10,000-row import took, in milliseconds, and its longest main-thread tasks. */
export type ImportBench = {
  rows: number
  readMs: number
  checkMs: number
  importMs: number
  totalMs: number
  longTasks: number
  longestTaskMs: { read: number; check: number; import: number }
}

/** The first annotation of `type` anywhere in a Playwright JSON report. */
export function findAnnotation(report: unknown, type: string): string | undefined {
  if (Array.isArray(report)) {
    for (const item of report) {
      const found = findAnnotation(item, type)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (report && typeof report === 'object') {
    const record = report as Record<string, unknown>
    if (record.type === type && typeof record.description === 'string') return record.description
    for (const value of Object.values(record)) {
      const found = findAnnotation(value, type)
      if (found !== undefined) return found
    }
  }
  return undefined
}

export async function benchImport(): Promise<ImportBench> {
  const report = join(ROOT, '.tmp', 'bench', 'import.json')
  rmSync(report, { force: true })
  const result = spawnSync(
    'npx',
    ['playwright', 'test', '-c', 'scripts/bench/browser/playwright.config.ts'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        E2E_PORT: String(await freePortRange(1)),
        E2E_WORKERS: '1',
        CHROMIUM_PATH: chromiumPath(),
        PLAYWRIGHT_JSON_OUTPUT_NAME: report,
      },
    },
  )
  if (result.status !== 0) throw new Error(`the import run failed (exit ${result.status})`)
  const figures = findAnnotation(JSON.parse(readFileSync(report, 'utf8')), '10k import')
  if (!figures) throw new Error(`no 10k import figures in ${report}`)
  return { rows: 10_000, ...(JSON.parse(figures) as Omit<ImportBench, 'rows'>) }
}
