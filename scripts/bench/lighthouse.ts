import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHROMIUM_ARGS } from '#tests/e2e/support/chromium.ts'
import { ROOT } from './processes.ts'

/** The Lighthouse figures of one page. */
export type LighthouseResult = {
  path: string
  performance: number
  accessibility: number
  lcpMs: number
  tbtMs: number
  cls: number
  /** Accessibility audits that failed (empty when the score is 100). */
  failedAccessibilityAudits: string[]
  /** The full report, for a closer look. */
  reportPath: string
}

type Report = {
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>
  audits: Record<string, { score: number | null; numericValue?: number; title: string }>
  runtimeError?: { message: string }
}

function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'pipe',
    })
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-4000)
    })
    child.once('error', fail)
    child.once('exit', (code) =>
      code === 0 ? done() : fail(new Error(`lighthouse exited with ${code}: ${errors}`)),
    )
  })
}

/**
 * Runs the Lighthouse CLI (its default mobile preset: Moto G power screen, simulated slow 4G and
 * 4x CPU slowdown) on `baseUrl + path` in Debian's Chromium, and reads the performance and
 * accessibility scores and LCP, TBT and CLS from its JSON report.
 */
export async function runLighthouse(
  baseUrl: string,
  path: string,
  { chromePath, outDir }: { chromePath: string; outDir: string },
): Promise<LighthouseResult> {
  const slug = path.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '') || 'root'
  const reportPath = join(outDir, `lighthouse-${slug}.json`)
  await run(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'lighthouse', 'cli', 'index.js'),
      `${baseUrl}${path}`,
      `--chrome-flags=${CHROMIUM_ARGS.join(' ')}`,
      '--only-categories=performance,accessibility',
      '--output=json',
      `--output-path=${reportPath}`,
      '--quiet',
    ],
    { CHROME_PATH: chromePath },
  )
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report
  if (report.runtimeError) throw new Error(`Lighthouse on ${path}: ${report.runtimeError.message}`)
  const score = (category: string) => Math.round((report.categories[category]?.score ?? 0) * 100)
  const value = (audit: string) => report.audits[audit]?.numericValue ?? Number.NaN
  const failedAccessibilityAudits = (report.categories.accessibility?.auditRefs ?? [])
    .filter((ref) => ref.weight > 0 && report.audits[ref.id]?.score === 0)
    .map((ref) => ref.id)
  return {
    path,
    performance: score('performance'),
    accessibility: score('accessibility'),
    lcpMs: value('largest-contentful-paint'),
    tbtMs: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    failedAccessibilityAudits,
    reportPath,
  }
}
