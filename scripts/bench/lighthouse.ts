import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHROMIUM_ARGS } from '#scripts/lib/chromium.ts'
import { ROOT } from './processes.ts'

/**
 * How Lighthouse slows the page down to a phone on slow 4G:
 * - `simulate` (its default): loads the page at full speed, then computes the metrics a slow
 *   phone would see from the requests and tasks it recorded, in the order they happened at full
 *   speed. On this local server every script has arrived before the first paint, so the model
 *   counts all of them as needed for it, even on a page whose HTML paints by itself.
 * - `devtools` (applied): loads the page through Chromium's own network and CPU throttling with
 *   the same figures, and measures what happens, in the order it happens on a slow connection.
 */
export type LighthouseThrottling = 'simulate' | 'devtools'

/** The Lighthouse figures of one page. */
export type LighthouseResult = {
  path: string
  throttling: LighthouseThrottling
  performance: number
  accessibility: number
  fcpMs: number
  lcpMs: number
  tbtMs: number
  cls: number
  /** Accessibility audits that failed (empty when the score is 100). */
  failedAccessibilityAudits: string[]
  /** The full report, for a closer look. */
  reportPath: string
  /** Performance scores of every run, when this is the median of several. */
  performanceRuns?: number[]
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
 * Runs the Lighthouse CLI (its default mobile preset: Moto G power screen, slow 4G and 4x CPU
 * slowdown, simulated or applied, see {@link LighthouseThrottling}) on `baseUrl + path` in
 * Debian's Chromium, and reads the performance and accessibility scores and FCP, LCP, TBT and
 * CLS from its JSON report.
 */
export async function runLighthouse(
  baseUrl: string,
  path: string,
  {
    chromePath,
    outDir,
    suffix = '',
    throttling = 'simulate',
  }: { chromePath: string; outDir: string; suffix?: string; throttling?: LighthouseThrottling },
): Promise<LighthouseResult> {
  const slug = path.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '') || 'root'
  const reportPath = join(outDir, `lighthouse-${throttling}-${slug.slice(0, 40)}${suffix}.json`)
  await run(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'lighthouse', 'cli', 'index.js'),
      `${baseUrl}${path}`,
      `--chrome-flags=${CHROMIUM_ARGS.join(' ')}`,
      '--only-categories=performance,accessibility',
      `--throttling-method=${throttling}`,
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
    throttling,
    performance: score('performance'),
    accessibility: score('accessibility'),
    fcpMs: value('first-contentful-paint'),
    lcpMs: value('largest-contentful-paint'),
    tbtMs: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    failedAccessibilityAudits,
    reportPath,
  }
}

/**
 * Of several runs on one page, the one with the median performance score (ties: the later run),
 * carrying every run's score; accessibility is the lowest seen, so a flaky failure still shows.
 */
export function medianRun(runs: LighthouseResult[]): LighthouseResult {
  if (runs.length === 0) throw new Error('no Lighthouse run to choose from')
  const sorted = [...runs].sort((a, b) => a.performance - b.performance)
  const middle = sorted[Math.floor(sorted.length / 2)] as LighthouseResult
  const worstAccessibility = runs.reduce((worst, run) =>
    run.accessibility < worst.accessibility ? run : worst,
  )
  return {
    ...middle,
    accessibility: worstAccessibility.accessibility,
    failedAccessibilityAudits: worstAccessibility.failedAccessibilityAudits,
    performanceRuns: runs.map((run) => run.performance),
  }
}

/**
 * The patient wallet's page of the demo practice, `/wallet/{practiceId}` (its own entry, signed
 * out: the prerendered sign-in), for the bench's first-load and Lighthouse rows: the demo Admin's
 * practice, found by signing in once.
 */
export async function walletPagePath(baseUrl: string): Promise<string> {
  const signIn = await fetch(`${baseUrl}/api/auth/local`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ identifier: 'demo@example.com', password: 'DemoPass123' }),
  })
  if (!signIn.ok) throw new Error(`demo sign-in answered ${signIn.status}`)
  const { practice } = (await signIn.json()) as { practice: { id: number } }
  const page = await fetch(`${baseUrl}/wallet/${practice.id}`)
  if (!page.ok) throw new Error(`the wallet's page answered ${page.status}`)
  return `/wallet/${practice.id}`
}
