import type { ApiBench, LoadResult } from './api.ts'
import type { CheckoutStatements } from './checkout-statements.ts'
import type { ColdStart } from './cold-start.ts'
import type { EntryGrowth } from './entry-growth.ts'
import type { FirstLoad } from './first-load.ts'
import type { ImportBench } from './import.ts'
import type { LighthouseResult } from './lighthouse.ts'
import type { OfferSendRun } from './offer-send.ts'
import type { ScaleBench, ScaleOperation, ScaleRun, ScaleSize } from './scale.ts'
import type { SignInFlood } from './sign-in-flood.ts'
import { count, kb, ms } from './stats.ts'
import type { WizardShift } from './wizard-cls.ts'

/** Everything one `npm run bench` measured (also written to .tmp/bench.json). */
export type BenchResult = {
  takenAt: string
  commit: string
  machine: { cpus: number; loadAverageBefore: number[]; loadAverageAfter: number[] }
  firstLoad: FirstLoad[]
  lighthouse: LighthouseResult[]
  wizardShift: WizardShift[]
  api?: ApiBench
  coldStart?: ColdStart
  signInFlood?: SignInFlood
  /** The portal at scale: one practice at 100 and at 10,000 patients, per database. */
  scale?: ScaleBench
  /** "Send to patients" to 10,000 patients: the request, then the worker's drain, per database. */
  offerSend?: OfferSendRun[]
  /** The 10,000-row patient import in Chromium (scripts/bench/import.ts). */
  patientImport?: ImportBench
  /** The SQL statements of one checkout on PGlite (scripts/bench/checkout-statements.ts). */
  checkoutStatements?: CheckoutStatements
  /** The entry chunk built from HEAD, and with one more route (scripts/bench/entry-growth.ts). */
  entryGrowth?: EntryGrowth
  /** Parts that failed to run, with the reason. */
  failures: string[]
}

/** One row of the printed table. */
export type Row = {
  measure: string
  subject: string
  value: string
  budget: string
  /** true met, false missed, undefined when the row has no budget. */
  met?: boolean | undefined
}

/** The budgets of decision 003 (docs/decisions/003-performance-budgets.md). */
export const BUDGETS = {
  signInFirstLoadJsBytes: 150_000,
  lighthousePerformance: 95,
  lighthouseAccessibility: 100,
  plansShareOfBare: 0.5,
  checkEmailP99Ms: 25,
  /** A real sign-in's median while 200 addresses flood the sign-in with wrong passwords. */
  signInDuringFloodMs: 300,
  /** The portal at scale: each median at 10,000 patients at most this times its figure at 100. */
  scaleRatio: 2,
  /** The portal at scale: a page of 25 patients, as answered without compression. */
  patientPageBytes: 20_000,
} as const

function percent(share: number): string {
  return `${(share * 100).toFixed(0)}%`
}

/** The shares of every round, when there were several: `(median of 48%, 52%, 55%)`. */
function rounds(shares: number[] | undefined): string {
  return shares && shares.length > 1 ? ` (median of ${shares.map(percent).join(', ')})` : ''
}

/** Each round's CPU share (the reported figure is that of the median req/s round). */
function cpuRounds(shares: number[] | undefined): string {
  return shares && shares.length > 1 ? ` (rounds: ${shares.map(percent).join(', ')})` : ''
}

function micros(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value)} µs` : 'n/a'
}

/** A page's path for the table: the unsubscribe token is long and says nothing. */
function pageLabel(path: string): string {
  return path
    .replace(/^\/unsubscribe\/.+$/, '/unsubscribe/:id')
    .replace(/^\/offers\/.+$/, '/offers/:token')
}

/** Whether a load run got answers, all of them 2xx. */
function answered(result: LoadResult): boolean {
  const entries = Object.entries(result.statusCounts)
  return entries.length > 0 && entries.every(([status]) => status.startsWith('2'))
}

function statuses(result: { statusCounts: Record<string, number> }): string {
  return Object.entries(result.statusCounts)
    .map(([status, n]) => `${status}×${count(n)}`)
    .join(' ')
}

/** Turns a result into the rows of the table, budget by budget. */
export function toRows(result: BenchResult): Row[] {
  const rows: Row[] = []
  for (const load of result.firstLoad) {
    const isSignIn = load.path === '/signin'
    rows.push({
      measure: 'First-load JS, gzip',
      subject: pageLabel(load.path),
      value: `${kb(load.jsGzip)} (${load.files.filter((f) => !f.url.endsWith('.css')).length} files, br on the wire ${kb(load.jsTransferred)})`,
      budget: isSignIn ? `≤ ${kb(BUDGETS.signInFirstLoadJsBytes)}` : '',
      met: isSignIn ? load.jsGzip <= BUDGETS.signInFirstLoadJsBytes : undefined,
    })
    rows.push({
      measure: 'First-load CSS, gzip',
      subject: pageLabel(load.path),
      value: `${kb(load.cssGzip)} (br on the wire ${kb(load.cssTransferred)})`,
      budget: '',
    })
  }
  for (const lh of result.lighthouse) {
    const method = lh.throttling === 'devtools' ? 'applied' : 'simulated'
    rows.push({
      measure: `Lighthouse mobile performance, ${method}`,
      subject: pageLabel(lh.path),
      value:
        String(lh.performance) +
        (lh.performanceRuns && lh.performanceRuns.length > 1
          ? ` (median of ${lh.performanceRuns.join(', ')})`
          : ''),
      budget: `≥ ${BUDGETS.lighthousePerformance}`,
      met: lh.performance >= BUDGETS.lighthousePerformance,
    })
    rows.push({
      measure: `Lighthouse mobile accessibility, ${method}`,
      subject: pageLabel(lh.path),
      value:
        String(lh.accessibility) +
        (lh.failedAccessibilityAudits.length
          ? ` (${lh.failedAccessibilityAudits.join(', ')})`
          : ''),
      budget: `= ${BUDGETS.lighthouseAccessibility}`,
      met: lh.accessibility >= BUDGETS.lighthouseAccessibility,
    })
    rows.push({
      measure: `Lighthouse FCP / LCP / TBT / CLS, ${method}`,
      subject: pageLabel(lh.path),
      value: `${ms(lh.fcpMs)} / ${ms(lh.lcpMs)} / ${ms(lh.tbtMs)} / ${lh.cls.toFixed(3)}`,
      budget: '',
    })
  }
  for (const run of result.wizardShift) {
    // A phase that could not be reached has no row: it is a failure of the bench (unmeasured).
    for (const phase of run.phases.filter((p) => !p.error)) {
      rows.push({
        measure: 'Wizard layout shift (all entries)',
        subject: `${run.viewport} ${phase.name}`,
        value: `${phase.totalShift.toFixed(4)} (CLS-counted ${phase.cls.toFixed(4)})`,
        budget: '= 0',
        met: phase.totalShift === 0,
      })
    }
  }
  const api = result.api
  if (api) {
    const ratio = api.plans.requestsPerSecond / api.bareGet.requestsPerSecond
    rows.push({
      measure: `GET /api/practice/plans, ${api.connections} conn, ${api.durationSeconds} s`,
      subject: 'req/s (bare node:http GET) = share',
      value: `${count(api.plans.requestsPerSecond)} (${count(api.bareGet.requestsPerSecond)}) = ${percent(ratio)}${rounds(api.getShares)}`,
      budget: `≥ ${BUDGETS.plansShareOfBare * 100}%`,
      met: answered(api.plans) && ratio >= BUDGETS.plansShareOfBare,
    })
    const cpuShare = api.bareGet.cpuMicrosPerRequest / api.plans.cpuMicrosPerRequest
    rows.push({
      measure: 'GET /api/practice/plans CPU per request (bare)',
      subject: 'capacity share, load-independent',
      value: `${micros(api.plans.cpuMicrosPerRequest)} (${micros(api.bareGet.cpuMicrosPerRequest)}) = ${percent(cpuShare)}${cpuRounds(api.getCpuShares)}`,
      budget: `≥ ${BUDGETS.plansShareOfBare * 100}%`,
      met: answered(api.plans) && cpuShare >= BUDGETS.plansShareOfBare,
    })
    rows.push({
      measure: 'GET /api/practice/plans p99 (bare)',
      subject: statuses(api.plans),
      value: `${ms(api.plans.p99Ms)} (${ms(api.bareGet.p99Ms)})`,
      budget: '',
    })
    const emailRatio = api.checkEmail.requestsPerSecond / api.barePost.requestsPerSecond
    rows.push({
      measure: `POST /api/auth/check-email, ${api.connections} conn`,
      subject: 'req/s (bare node:http POST) = share',
      value: `${count(api.checkEmail.requestsPerSecond)} (${count(api.barePost.requestsPerSecond)}) = ${percent(emailRatio)}${rounds(api.postShares)}`,
      budget: '',
    })
    rows.push({
      measure: 'POST /api/auth/check-email CPU per request (bare)',
      subject: 'capacity share, load-independent',
      value: `${micros(api.checkEmail.cpuMicrosPerRequest)} (${micros(api.barePost.cpuMicrosPerRequest)}) = ${percent(api.barePost.cpuMicrosPerRequest / api.checkEmail.cpuMicrosPerRequest)}${cpuRounds(api.postCpuShares)}`,
      budget: '',
    })
    rows.push({
      measure: 'POST /api/auth/check-email p99 (bare)',
      subject: statuses(api.checkEmail),
      value: `${ms(api.checkEmail.p99Ms)} (${ms(api.barePost.p99Ms)})`,
      budget: `< ${BUDGETS.checkEmailP99Ms} ms`,
      // No answers at all is no figure, not a fast one.
      met: answered(api.checkEmail) && api.checkEmail.p99Ms < BUDGETS.checkEmailP99Ms,
    })
    rows.push({
      measure: `POST /api/auth/local median / p99, ${api.signIn.requests} one at a time`,
      subject: statuses(api.signIn),
      value: `${ms(api.signIn.medianMs)} / ${ms(api.signIn.p99Ms)}`,
      budget: '',
    })
  }
  const flood = result.signInFlood
  if (flood) {
    rows.push({
      measure: `POST /api/auth/local median during a flood (${flood.addresses} addresses × ${flood.perAddress} wrong passwords, ${flood.concurrency} at a time)`,
      subject: `real sign-ins ${statuses(flood.real)}; idle median ${ms(flood.idleMedianMs)}`,
      value: `${ms(flood.real.medianMs)} (p90 ${ms(flood.real.p90Ms)})`,
      budget: `< ${BUDGETS.signInDuringFloodMs} ms`,
      met: flood.real.requests > 0 && flood.real.medianMs < BUDGETS.signInDuringFloodMs,
    })
    rows.push({
      measure: 'The flood itself',
      subject: `${count(flood.flood.requests)} requests in ${flood.flood.seconds.toFixed(0)} s`,
      value: statuses(flood.flood),
      budget: '',
    })
  }
  for (const run of result.offerSend ?? []) {
    rows.push({
      measure: `Send an offer to ${run.patients.toLocaleString('en-US')} patients`,
      subject: run.database,
      value: `request ${ms(run.requestMs)} (${run.queued.toLocaleString('en-US')} queued), worker drain to the outbox ${ms(run.drainMs)}`,
      budget: '',
    })
  }
  if (result.patientImport) {
    const run = result.patientImport
    rows.push({
      measure: `Import ${run.rows.toLocaleString('en-US')} patients from a CSV, in Chromium`,
      subject: 'read / check / import (total)',
      value: `${ms(run.readMs)} / ${ms(run.checkMs)} / ${ms(run.importMs)} (${ms(run.totalMs)})`,
      budget: '',
    })
    rows.push({
      measure: 'Longest main-thread task during the import',
      subject: `read / check / import (${run.longTasks} over 50 ms)`,
      value: `${ms(run.longestTaskMs.read)} / ${ms(run.longestTaskMs.check)} / ${ms(run.longestTaskMs.import)}`,
      budget: '',
    })
  }
  if (result.checkoutStatements) {
    const run = result.checkoutStatements
    rows.push({
      measure: 'SQL statements per checkout (one line, a code-approved redemption)',
      subject: `PGlite; patient read ${run.patientReads}×, idempotency checked ${run.keyLookups}×`,
      value: String(run.statements),
      budget: '',
    })
  }
  if (result.entryGrowth) {
    const { commit, beforeGzip, afterGzip, beforeCodeGzip, afterCodeGzip } = result.entryGrowth
    const signed = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${Math.abs(bytes)} B`
    const growth = afterCodeGzip - beforeCodeGzip
    rows.push({
      measure: 'Entry chunk (gzip) when one signed-in route is added',
      subject: `HEAD ${commit}, every page downloads it first; chunk names' hashes written alike`,
      value: `${signed(growth)} (${count(beforeCodeGzip)} → ${count(afterCodeGzip)} B; as built ${signed(afterGzip - beforeGzip)})`,
      budget: '+0 B',
      met: growth <= 0,
    })
  }
  if (result.coldStart) {
    rows.push({
      measure: 'Cold start to first 200 of /api/health',
      subject: 'fresh DATA_DIR / existing DATA_DIR',
      value: `${ms(result.coldStart.freshDataDirMs)} / ${ms(result.coldStart.existingDataDirMs)}`,
      budget: '',
    })
  }
  return rows
}

/**
 * Pages that load no script by design: the offer page of a patient's e-mail is a whole document
 * from the server whose claim is a form (server/modules/promotions/pages.ts). Its first load
 * without JavaScript is its figure, not a load that failed.
 */
export function isScriptFreePage(path: string): boolean {
  return path.startsWith('/offers/')
}

/**
 * What a run set out to measure and could not: each a sentence for the bench's failures, so that
 * the bench ends with ✖ and a non-zero exit instead of printing a row without a figure.
 */
export function unmeasured(result: BenchResult): string[] {
  const missing: string[] = []
  for (const load of result.firstLoad) {
    if (!(load.jsGzip > 0) && !isScriptFreePage(load.path)) {
      missing.push(`First load of ${load.path}: no JavaScript was fetched`)
    }
  }
  for (const run of result.wizardShift) {
    for (const phase of run.phases) {
      if (phase.error) {
        missing.push(`Wizard layout shift at ${run.viewport}, ${phase.name}: ${phase.error}`)
      }
    }
  }
  for (const lh of result.lighthouse) {
    if (!Number.isFinite(lh.performance) || !Number.isFinite(lh.lcpMs)) {
      missing.push(`Lighthouse on ${lh.path}: the report has no performance figures`)
    }
  }
  const api = result.api
  if (api) {
    for (const [name, load] of [
      ['GET /api/practice/plans', api.plans],
      ['POST /api/auth/check-email', api.checkEmail],
    ] as const) {
      if (!answered(load)) missing.push(`${name} under load: no 2xx answer (${statuses(load)})`)
      else if (!Number.isFinite(load.cpuMicrosPerRequest)) {
        missing.push(`${name} under load: no CPU time per request`)
      }
    }
  }
  for (const run of result.scale?.runs ?? []) {
    const [small, large] = smallAndLarge(run)
    if (!small || !large) {
      missing.push(`Portal at scale on ${run.database}: not both sizes were measured`)
      continue
    }
    for (const op of small.operations) {
      const other = large.operations.find((candidate) => candidate.label === op.label)
      if (!other)
        missing.push(
          `Portal at scale on ${run.database}, ${op.label}: not measured at ${count(large.patients)}`,
        )
      else if (!allAnswered(op) || !allAnswered(other)) {
        missing.push(
          `Portal at scale on ${run.database}, ${op.label}: calls failed (${statuses(op)}; ${statuses(other)})`,
        )
      }
    }
  }
  return missing
}

/** Lines of cells as a fixed-width text table, the first line as its header. */
export function formatGrid(lines: string[][]): string {
  const columns = Math.max(...lines.map((line) => line.length))
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(...lines.map((line) => line[i]?.length ?? 0)),
  )
  const line = (values: string[]) =>
    widths
      .map((width, i) => (values[i] ?? '').padEnd(width))
      .join(' │ ')
      .trimEnd()
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─')
  return [line(lines[0] ?? []), rule, ...lines.slice(1).map(line)].join('\n')
}

/** The rows as a fixed-width text table. */
export function formatTable(rows: Row[]): string {
  const header: Row = { measure: 'Measure', subject: 'Subject', value: 'Value', budget: 'Budget' }
  const cells = (row: Row) => [
    row.measure,
    row.subject,
    row.value,
    row.budget,
    row === header ? 'Met' : row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ]
  return formatGrid([header, ...rows].map(cells))
}

/** A ratio as `1.37×` (two decimals below 10, none above). */
export function times(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a'
  return `${ratio.toFixed(ratio < 10 ? 2 : 0)}×`
}

/** Whether every call of an operation answered 2xx (or, for a service call, did not throw). */
function allAnswered(operation: ScaleOperation): boolean {
  const entries = Object.entries(operation.statusCounts)
  // `shown`: the dashboard in Chromium showed its numbers (bench/scale.ts), its one outcome.
  return (
    entries.length > 0 &&
    entries.every(([status]) => status === 'ok' || status === 'shown' || /^2/.test(status))
  )
}

/** `p50 / p95`, and the statuses when some call failed. */
function latencyCell(operation: ScaleOperation | undefined): string {
  if (!operation) return 'n/a'
  const figure = `${ms(operation.p50Ms)} / ${ms(operation.p95Ms)}`
  return allAnswered(operation) ? figure : `${figure} (${statuses(operation)})`
}

/** The first and the last size of a run: the budget compares them. */
function smallAndLarge(run: ScaleRun): [ScaleSize | undefined, ScaleSize | undefined] {
  return [run.sizes[0], run.sizes.length > 1 ? run.sizes.at(-1) : undefined]
}

/** The lowest and highest ratio of one round's medians, when the sizes took turns in rounds. */
function roundSpread(a: ScaleOperation, b: ScaleOperation): string {
  const small = a.roundP50Ms ?? []
  const large = b.roundP50Ms ?? []
  if (small.length < 2 || small.length !== large.length) return ''
  const ratios = large.map((median, round) => median / (small[round] as number))
  return ` (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
}

/** The cells of one operation on one database: small, large, ratio of the medians, met. */
export function scaleCells(run: ScaleRun, label: string): string[] {
  const [small, large] = smallAndLarge(run)
  const at = (size: ScaleSize | undefined) => size?.operations.find((op) => op.label === label)
  const [a, b] = [at(small), at(large)]
  if (!a || !b) return [latencyCell(a), latencyCell(b), 'n/a', 'NO']
  const ratio = b.p50Ms / a.p50Ms
  const answered = allAnswered(a) && allAnswered(b)
  const met = answered && ratio <= BUDGETS.scaleRatio
  // A cost paid once a day or once a practice is measured, not judged (its reason under the table).
  const verdict = a.unbudgeted ? (answered ? '—' : 'NO') : met ? 'yes' : 'NO'
  return [latencyCell(a), latencyCell(b), times(ratio) + roundSpread(a, b), verdict]
}

/** The cells of the patient page's size on one database. */
export function pageSizeCells(run: ScaleRun): string[] {
  const [small, large] = smallAndLarge(run)
  const cell = (size: ScaleSize | undefined) =>
    size ? `${kb(size.pageBytes)} (gzip ${kb(size.pageGzipBytes)})` : 'n/a'
  const met = large !== undefined && large.pageBytes < BUDGETS.patientPageBytes
  const ratio = small && large ? times(large.pageBytes / small.pageBytes) : 'n/a'
  return [cell(small), cell(large), ratio, met ? 'yes' : 'NO']
}

/**
 * The portal at scale as its own table: a line per operation, and per database its figures at
 * the smallest and the largest practice, their ratio and whether the budget is met.
 */
export function formatScaleTable(scale: ScaleBench): string {
  const runs = scale.runs
  const labels = [
    ...new Set(
      runs.flatMap((run) => run.sizes.flatMap((size) => size.operations.map((op) => op.label))),
    ),
  ]
  const header = ['Operation (p50 / p95)']
  for (const run of runs) {
    const [small, large] = smallAndLarge(run)
    header.push(
      `${run.database} ${count(small?.patients ?? Number.NaN)}`,
      `${run.database} ${count(large?.patients ?? Number.NaN)}`,
      'Ratio',
      'Met',
    )
  }
  const lines = [
    header,
    ...labels.map((label) => [label, ...runs.flatMap((run) => scaleCells(run, label))]),
    ['Patient page answer, pageSize=25', ...runs.flatMap(pageSizeCells)],
  ]
  const seeded = runs.map((run) => {
    const [, large] = smallAndLarge(run)
    const seconds = run.sizes.map((size) => (size.seedMs / 1000).toFixed(1)).join(' s, ')
    return `${run.database} ${seconds} s (${count(large?.ledgerEntries ?? Number.NaN)} ledger entries)`
  })
  const unbudgeted = [
    ...new Map(
      runs.flatMap((run) =>
        run.sizes.flatMap((size) =>
          size.operations.flatMap((op) => (op.unbudgeted ? [[op.label, op.unbudgeted]] : [])),
        ),
      ) as [string, string][],
    ),
  ].map(([label, reason]) => `— ${label}: not budgeted, ${reason}.`)
  return [
    `Portal at scale: practices of ${runs[0]?.sizes.map((s) => count(s.patients)).join(' and ')} patients in one database; ` +
      `server time in-process (app.request), p50 / p95 of ${scale.requests} calls after ${scale.warmUp} warm-up` +
      (scale.rounds
        ? `, in ${scale.rounds} rounds in which the sizes take turns (Ratio: of the medians, and the range of the rounds' ratios).`
        : '.'),
    `Budget: at 10,000 patients each median is at most ${BUDGETS.scaleRatio}× its figure at 100 (Ratio); ` +
      `a patient page answer stays under ${kb(BUDGETS.patientPageBytes)} (uncompressed).`,
    '',
    formatGrid(lines),
    ...(unbudgeted.length ? ['', ...unbudgeted] : []),
    '',
    `Seeded in: ${seeded.join('; ')}.`,
  ].join('\n')
}
