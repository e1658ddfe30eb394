import { describe, expect, it } from 'vitest'
import { withoutChunkHashes } from './entry-growth.ts'
import {
  type BenchResult,
  formatScaleTable,
  formatTable,
  pageSizeCells,
  scaleCells,
  times,
  toRows,
  unmeasured,
} from './report.ts'
import type { ScaleRun } from './scale.ts'

const base: BenchResult = {
  takenAt: '2026-01-01T00:00:00.000Z',
  commit: 'abc1234',
  machine: { cpus: 2, loadAverageBefore: [1, 1, 1], loadAverageAfter: [1, 1, 1] },
  firstLoad: [],
  lighthouse: [],
  wizardShift: [],
  failures: [],
}

describe('bench report', () => {
  it('checks each figure against its budget', () => {
    const rows = toRows({
      ...base,
      firstLoad: [
        {
          path: '/signin',
          jsGzip: 119_000,
          cssGzip: 20_000,
          jsTransferred: 100_000,
          cssTransferred: 18_000,
          files: [{ url: '/assets/index.js', gzip: 119_000, transferred: 100_000 }],
        },
        {
          path: '/unsubscribe/abcdefghijklmnopqrstuvwxyz',
          jsGzip: 200_000,
          cssGzip: 20_000,
          jsTransferred: 150_000,
          cssTransferred: 18_000,
          files: [],
        },
      ],
      lighthouse: [
        {
          path: '/signup',
          throttling: 'simulate',
          performance: 94,
          accessibility: 100,
          fcpMs: 1800,
          lcpMs: 2000,
          tbtMs: 10,
          cls: 0,
          failedAccessibilityAudits: [],
          reportPath: 'x.json',
        },
        {
          path: '/signup',
          throttling: 'devtools',
          performance: 96,
          accessibility: 100,
          fcpMs: 1900,
          lcpMs: 1900,
          tbtMs: 90,
          cls: 0,
          failedAccessibilityAudits: [],
          reportPath: 'y.json',
        },
      ],
      api: {
        connections: 20,
        durationSeconds: 5,
        rounds: 3,
        getShares: [0.5, 0.6, 0.7],
        getCpuShares: [0.55, 0.6, 0.65],
        postShares: [0.2],
        postCpuShares: [0.4],
        bareGet: {
          label: 'bare',
          requestsPerSecond: 10_000,
          cpuMicrosPerRequest: 30,
          p50Ms: 1,
          p99Ms: 3,
          statusCounts: { 200: 50_000 },
          errors: 0,
          timeouts: 0,
        },
        plans: {
          label: 'plans',
          requestsPerSecond: 6_000,
          cpuMicrosPerRequest: 50,
          p50Ms: 2,
          p99Ms: 6,
          statusCounts: { 200: 30_000 },
          errors: 0,
          timeouts: 0,
        },
        barePost: {
          label: 'bare',
          requestsPerSecond: 9_000,
          cpuMicrosPerRequest: 40,
          p50Ms: 1,
          p99Ms: 3,
          statusCounts: { 200: 45_000 },
          errors: 0,
          timeouts: 0,
        },
        checkEmail: {
          label: 'check',
          requestsPerSecond: 2_000,
          cpuMicrosPerRequest: 100,
          p50Ms: 9,
          p99Ms: 30,
          statusCounts: { 200: 10_000 },
          errors: 0,
          timeouts: 0,
        },
        signIn: { requests: 200, medianMs: 20, p99Ms: 40, statusCounts: { 200: 200 } },
      },
    })
    const met = (measure: string, subject?: string) =>
      rows.find((row) => row.measure.startsWith(measure) && (!subject || row.subject === subject))
        ?.met
    expect(met('First-load JS', '/signin')).toBe(true)
    expect(met('First-load JS', '/unsubscribe/:id')).toBeUndefined()
    expect(met('Lighthouse mobile performance, simulated')).toBe(false)
    expect(met('Lighthouse mobile performance, applied')).toBe(true)
    expect(met('Lighthouse mobile accessibility')).toBe(true)
    expect(
      rows.find((row) => row.measure === 'Lighthouse FCP / LCP / TBT / CLS, applied')?.value,
    ).toBe('1900 ms / 1900 ms / 90.0 ms / 0.000')
    expect(met('GET /api/practice/plans,')).toBe(true)
    expect(met('POST /api/auth/check-email p99')).toBe(false)
    expect(rows.find((row) => row.measure.startsWith('POST /api/auth/local'))?.value).toBe(
      '20.0 ms / 40.0 ms',
    )
    expect(rows.find((row) => row.measure.startsWith('GET /api/practice/plans,'))?.value).toBe(
      '6,000 (10,000) = 60% (median of 50%, 60%, 70%)',
    )
    const cpu = rows.find((row) => row.measure.startsWith('GET /api/practice/plans CPU'))
    expect(cpu?.value).toBe('50 µs (30 µs) = 60% (rounds: 55%, 60%, 65%)')
    expect(cpu?.met).toBe(true)
  })

  it('holds the entry chunk to no growth when a route is added', () => {
    const [row] = toRows({
      ...base,
      entryGrowth: {
        commit: 'abc1234',
        beforeGzip: 128_137,
        afterGzip: 128_194,
        beforeCodeGzip: 128_100,
        afterCodeGzip: 128_157,
      },
    })
    expect(row).toMatchObject({
      value: '+57 B (128,100 → 128,157 B; as built +57 B)',
      budget: '+0 B',
      met: false,
    })
    // A lazy chunk renamed (its hash) is not growth of the entry's code.
    const [renamed] = toRows({
      ...base,
      entryGrowth: {
        commit: 'abc1234',
        beforeGzip: 123_915,
        afterGzip: 123_916,
        beforeCodeGzip: 123_890,
        afterCodeGzip: 123_890,
      },
    })
    expect(renamed).toMatchObject({ value: '+0 B (123,890 → 123,890 B; as built +1 B)', met: true })
  })

  it('writes the content hashes of chunk names alike, and nothing else', () => {
    expect(
      withoutChunkHashes(
        'import("./routeTree.gen-DnLGqSQG.js");"assets/xstate-react.esm-C-MHxUSo.js";"a-b.js"',
      ),
    ).toBe('import("./routeTree.gen-HASH.js");"assets/xstate-react.esm-HASH.js";"a-b.js"')
  })

  it('prints one aligned table with a header', () => {
    const table = formatTable([
      { measure: 'A', subject: 'b', value: '1', budget: '≤ 2', met: true },
      { measure: 'Longer', subject: 'c', value: '3', budget: '≤ 2', met: false },
    ])
    const lines = table.split('\n')
    expect(lines[0]).toMatch(/^Measure │ Subject │ Value │ Budget │ Met$/)
    expect(lines[2]).toContain('│ yes')
    expect(lines[3]).toContain('│ NO')
    expect(lines).toHaveLength(4)
  })
})

/** An API bench whose every load answered like `load`. */
function apiOf(load: NonNullable<BenchResult['api']>['plans']): NonNullable<BenchResult['api']> {
  return {
    connections: 20,
    durationSeconds: 5,
    rounds: 1,
    getShares: [Number.NaN],
    getCpuShares: [Number.NaN],
    postShares: [Number.NaN],
    postCpuShares: [Number.NaN],
    bareGet: load,
    plans: load,
    barePost: load,
    checkEmail: load,
    signIn: { requests: 0, medianMs: Number.NaN, p99Ms: Number.NaN, statusCounts: {} },
  }
}

describe('bench report of a run without answers', () => {
  it('never counts an API run with no 2xx answers as a met budget', () => {
    const silent = {
      label: 'x',
      requestsPerSecond: 0,
      cpuMicrosPerRequest: Number.NaN,
      p50Ms: 0,
      p99Ms: 0,
      statusCounts: {},
      errors: 20,
      timeouts: 0,
    }
    const rows = toRows({ ...base, api: apiOf(silent) })
    expect(rows.filter((row) => row.met === true)).toEqual([])
    expect(unmeasured({ ...base, api: apiOf(silent) })).toEqual([
      'GET /api/practice/plans under load: no 2xx answer ()',
      'POST /api/auth/check-email under load: no 2xx answer ()',
    ])
  })

  it('fails a page whose scripts did not load, but not the offer page, which has none', () => {
    const load = (path: string) => ({
      path,
      jsGzip: 0,
      cssGzip: 0,
      jsTransferred: 0,
      cssTransferred: 0,
      files: [],
    })
    expect(unmeasured({ ...base, firstLoad: [load('/signin'), load('/offers/abc')] })).toEqual([
      'First load of /signin: no JavaScript was fetched',
    ])
  })

  it('turns a wizard phase it could not reach into a failure, not a row', () => {
    const result: BenchResult = {
      ...base,
      wizardShift: [
        {
          viewport: '390x844',
          phases: [
            { name: 'step 1: errors appear', totalShift: 0, cls: 0, movedNodes: [] },
            {
              name: 'step 3: errors go away (card filled)',
              totalShift: Number.NaN,
              cls: Number.NaN,
              movedNodes: [],
              error: 'locator.waitFor: Timeout 15000ms exceeded.',
            },
          ],
        },
      ],
    }
    expect(toRows(result).map((row) => row.subject)).toEqual(['390x844 step 1: errors appear'])
    expect(unmeasured(result)).toEqual([
      'Wizard layout shift at 390x844, step 3: errors go away (card filled): locator.waitFor: Timeout 15000ms exceeded.',
    ])
  })
})

describe('bench report of the portal at scale', () => {
  const op = (
    label: string,
    p50Ms: number,
    statusCounts: Record<string, number> = { 200: 200 },
  ) => ({
    label,
    p50Ms,
    p95Ms: p50Ms * 2,
    statusCounts,
  })
  const run: ScaleRun = {
    database: 'PGlite',
    sizes: [
      {
        patients: 100,
        ledgerEntries: 2_000,
        seedMs: 300,
        operations: [
          op('Search', 2),
          op('Profile', 5),
          op('Adjust', 4, { 201: 200 }),
          op('Dashboard', 400, { shown: 7 }),
        ],
        pageBytes: 9_900,
        pageGzipBytes: 1_600,
      },
      {
        patients: 10_000,
        ledgerEntries: 200_660,
        seedMs: 10_500,
        operations: [
          op('Search', 30),
          op('Profile', 10),
          op('Adjust', 4.4, { 201: 199, 500: 1 }),
          op('Dashboard', 420, { shown: 7 }),
        ],
        pageBytes: 21_000,
        pageGzipBytes: 1_400,
      },
    ],
  }

  it('compares the medians at 10,000 patients with those at 100, at most 2×', () => {
    expect(scaleCells(run, 'Search')).toEqual(['2.0 ms / 4.0 ms', '30.0 ms / 60.0 ms', '15×', 'NO'])
    expect(scaleCells(run, 'Profile')).toEqual([
      '5.0 ms / 10.0 ms',
      '10.0 ms / 20.0 ms',
      '2.00×',
      'yes',
    ])
    // A failed call is shown and never counts as met, however fast.
    expect(scaleCells(run, 'Adjust')).toEqual([
      '4.0 ms / 8.0 ms',
      '4.4 ms / 8.8 ms (201×199 500×1)',
      '1.10×',
      'NO',
    ])
    expect(scaleCells(run, 'Missing')[3]).toBe('NO')
    // Timed in rounds, the ratio shows the range of the rounds' ratios.
    const inRounds: ScaleRun = {
      ...run,
      sizes: run.sizes.map((size, index) => ({
        ...size,
        operations: [
          { ...op('Summary', 2 + index), roundP50Ms: index ? [3, 3.3, 2.7] : [2, 2, 2] },
        ],
      })),
    }
    expect(scaleCells(inRounds, 'Summary')[2]).toBe('1.50× (1.35–1.65)')
    // ...and fails the bench.
    expect(unmeasured({ ...base, scale: { requests: 200, warmUp: 20, runs: [run] } })).toEqual([
      'Portal at scale on PGlite, Adjust: calls failed (201×200; 201×199 500×1)',
    ])
    // The dashboard in Chromium counts the loads that showed its numbers.
    expect(scaleCells(run, 'Dashboard')).toEqual([
      '400 ms / 800 ms',
      '420 ms / 840 ms',
      '1.05×',
      'yes',
    ])
  })

  it('measures a cost paid once a day without judging it, and says why under the table', () => {
    const once = 'the first report of a day'
    const withCold: ScaleRun = {
      ...run,
      sizes: run.sizes.map((size, index) => ({
        ...size,
        operations: [
          ...size.operations,
          { ...op('Cold report', index ? 60 : 15), unbudgeted: once },
          {
            ...op('Cold failing', 10, index ? { 200: 3, 500: 1 } : undefined),
            unbudgeted: once,
          },
        ],
      })),
    }
    expect(scaleCells(withCold, 'Cold report')).toEqual([
      '15.0 ms / 30.0 ms',
      '60.0 ms / 120 ms',
      '4.00×',
      '—',
    ])
    // A call that failed still fails the row.
    expect(scaleCells(withCold, 'Cold failing')[3]).toBe('NO')
    const table = formatScaleTable({ requests: 200, warmUp: 20, runs: [withCold] })
    expect(table).toContain(`— Cold report: not budgeted, ${once}.`)
    expect(formatScaleTable({ requests: 200, warmUp: 20, runs: [run] })).not.toContain(
      'not budgeted',
    )
  })

  it('holds the patient page at 10,000 patients to 20 KB', () => {
    expect(pageSizeCells(run)).toEqual([
      '9.9 KB (gzip 1.6 KB)',
      '21.0 KB (gzip 1.4 KB)',
      '2.12×',
      'NO',
    ])
    const small = { ...run, sizes: run.sizes.map((size) => ({ ...size, pageBytes: 9_900 })) }
    expect(pageSizeCells(small)[3]).toBe('yes')
  })

  it('prints a column group per database', () => {
    const table = formatScaleTable({
      requests: 200,
      warmUp: 20,
      runs: [run, { ...run, database: 'PostgreSQL' }],
    })
    const lines = table.split('\n')
    const header = lines.find((line) => line.startsWith('Operation'))
    expect(header?.split('│').map((cell) => cell.trim())).toEqual([
      'Operation (p50 / p95)',
      'PGlite 100',
      'PGlite 10,000',
      'Ratio',
      'Met',
      'PostgreSQL 100',
      'PostgreSQL 10,000',
      'Ratio',
      'Met',
    ])
    expect(lines.filter((line) => line.startsWith('Search'))).toHaveLength(1)
    expect(table).toContain('Patient page answer, pageSize=25')
    expect(table).toContain('PGlite 0.3 s, 10.5 s (200,660 ledger entries)')
  })

  it('writes ratios with two decimals below 10', () => {
    expect(times(1.234)).toBe('1.23×')
    expect(times(12.6)).toBe('13×')
    expect(times(Number.NaN)).toBe('n/a')
  })
})
