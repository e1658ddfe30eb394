/**
 * `npm run bench`: the speed and size figures of decision 003, printed as one table and written to
 * .tmp/bench.json. It is a measurement, not a test: it never fails on a missed budget (the table
 * says which are met) and exits non-zero only when a part could not run.
 *
 * - First-load JS and CSS of /signin, /signup, /thankyou, /unsubscribe/:id, /offers/:token and the
 *   patient wallet's /wallet/:practiceId (signed out) from the production
 *   build: each page is loaded in headless Chromium against the real server; the scripts and style
 *   sheets fetched until the network is quiet are summed as gzip (level 9, computed from dist/) and
 *   as the bytes actually transferred (brotli).
 * - Lighthouse 12.8 mobile: performance and accessibility scores, FCP, LCP, TBT, CLS of the same
 *   pages, the run with the median performance score of three (Lighthouse's own advice for noisy
 *   hosts), with slow 4G simulated (Lighthouse's default) and applied (scripts/bench/lighthouse.ts
 *   says why both).
 * - The wizard's layout shift while errors appear and disappear, at 390 and 1440 px.
 * - API: autocannon at 20 connections (see bench/api.ts), and cold start (bench/cold-start.ts).
 * - Sign-in during a flood: the median of real sign-ins while 200 addresses send wrong
 *   passwords, each under its per-address limit (bench/sign-in-flood.ts).
 * - The portal at scale: a practice of 100 and one of 10,000 patients (200,000 ledger entries),
 *   every patient a member (bench/scale-members.ts), side by side, seeded in bulk; search, profile
 *   with ledger, adjustments, a redemption, the dashboard, a member's checkout (allowance, member
 *   price, bank), the memberships report and the patient page's size at both, timed in rounds in which the two take turns, on
 *   PGlite and on PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set (bench/scale.ts),
 *   printed as a table of its own.
 *
 * - Several processes on one PostgreSQL: the portal's mixed load (sign-ins, searches,
 *   profiles, visits, redemptions) sent round-robin to 1 and then 2 server processes, requests per
 *   second, p95 and errors side by side (bench/scale-out.ts).
 *
 * - "Send to patients" to 10,000 patients: the request's time (it queues, never sends) and the
 *   worker's time to drain the queue to the outbox, on PGlite and PostgreSQL (bench/offer-send.ts).
 *
 * - The 10,000-row patient import in Chromium against the real server: read, check and import
 *   times and the longest main-thread task of each (bench/import.ts, bench/browser/import.spec.ts).
 *
 * - SQL statements per checkout: the statements one `POST /api/visits` of one line with a
 *   code-approved redemption sends to PGlite (bench/checkout-statements.ts).
 *
 * - The entry chunk's growth when one signed-in route is added: HEAD built twice in a temporary
 *   copy, without and with an empty route (bench/entry-growth.ts).
 *
 * - A day of membership renewals: 100,000 members of one practice renewing on one day, charged
 *   through the test gateway by the billing run, all good, then 5% failing, then a tenth due among
 *   all vs alone (linearity); time, charges per second, peak memory, double charges, on
 *   PostgreSQL (bench/billing.ts), printed as a table of its own.
 *
 * Options: `--only=first-load,lighthouse,wizard,api,cold,flood,scale,scale-out,send,import,checkout,entry-growth,nextech,billing`
 * runs some parts; `--scale-out-requests=N` and `--scale-out-concurrency=N` set the scale-out load
 * (default 2000 requests, 16 at once);
 * `--duration=N` sets the autocannon seconds (default 5); `--lighthouse-runs=N` the runs per page
 * (default 3); `--lighthouse-throttling=simulate,devtools` the throttling methods (default both);
 * `--pages=/unsubscribe,/offers,/wallet` only the public pages whose path starts with one of these;
 * `--scale-requests=N` the timed calls per operation at scale (default 200);
 * `--billing-members=N` the members of the billing part (default 100,000),
 * `--billing-concurrency=N` its runDue concurrency (default 8, the pool has 10 connections) and
 * `--billing-scenarios=a,b,c` which of its scenarios run (default all). Needs Chromium
 * (CHROMIUM_PATH or /usr/bin/chromium) for the pages.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumPath } from '#scripts/lib/chromium.ts'
import { benchApi } from './bench/api.ts'
import {
  type BillingBench,
  type BillingScenarioKey,
  benchBilling,
  billingDatabaseUrl,
  billingFailures,
  formatBillingTable,
} from './bench/billing.ts'
import { benchCheckoutStatements } from './bench/checkout-statements.ts'
import { benchColdStart } from './bench/cold-start.ts'
import { benchEntryGrowth } from './bench/entry-growth.ts'
import { measureFirstLoad } from './bench/first-load.ts'
import { benchImport } from './bench/import.ts'
import {
  type LighthouseResult,
  type LighthouseThrottling,
  medianRun,
  runLighthouse,
  walletPagePath,
} from './bench/lighthouse.ts'
import { benchNextech, formatNextechTable, type NextechBench } from './bench/nextech.ts'
import { benchOfferSend } from './bench/offer-send.ts'
import {
  type ChildServer,
  freePort,
  ROOT,
  removeDir,
  startAppServer,
  tempDataDir,
} from './bench/processes.ts'
import {
  type BenchResult,
  formatScaleTable,
  formatTable,
  toRows,
  unmeasured,
} from './bench/report.ts'
import { benchScale, SCALE_ROUNDS, type ScaleRun, scaleDatabases } from './bench/scale.ts'
import { benchScaleOut, formatScaleOutTable, type ScaleOutBench } from './bench/scale-out.ts'
import { benchSignInFlood } from './bench/sign-in-flood.ts'
import { measureWizardShift } from './bench/wizard-cls.ts'
import { ensureBuilt } from './lib/build.ts'

const PARTS = [
  'first-load',
  'lighthouse',
  'wizard',
  'api',
  'cold',
  'flood',
  'scale',
  'scale-out',
  'send',
  'import',
  'checkout',
  'entry-growth',
  'nextech',
  'billing',
] as const
type Part = (typeof PARTS)[number]

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value = ''] = arg.replace(/^--/, '').split('=')
    return [key ?? '', value]
  }),
)
const only = args.get('only')
const wanted = new Set<Part>(
  only
    ? (only.split(',').filter((p) => (PARTS as readonly string[]).includes(p)) as Part[])
    : PARTS,
)
const durationSeconds = Number(args.get('duration') ?? 5)
/** `--pages=/unsubscribe,/offers`: only the public pages whose path starts with one of these. */
const pageFilter = args.get('pages')?.split(',').filter(Boolean)
const lighthouseRuns = Math.max(1, Number(args.get('lighthouse-runs') ?? 3))
const scaleRequests = Math.max(1, Number(args.get('scale-requests') ?? 200))
const scaleOutRequests = Math.max(1, Number(args.get('scale-out-requests') ?? 2000))
const scaleOutConcurrency = Math.max(1, Number(args.get('scale-out-concurrency') ?? 16))
const billingMembers = Math.max(10, Number(args.get('billing-members') ?? 100_000))
const billingConcurrency = Math.max(1, Number(args.get('billing-concurrency') ?? 8))
const billingScenarios = (args.get('billing-scenarios') ?? 'a,b,c')
  .split(',')
  .filter((key): key is BillingScenarioKey => key === 'a' || key === 'b' || key === 'c')
const lighthouseThrottling = (args.get('lighthouse-throttling') ?? 'simulate,devtools')
  .split(',')
  .filter(
    (method): method is LighthouseThrottling => method === 'simulate' || method === 'devtools',
  )

const load = () => loadavg().map((n) => Number(n.toFixed(2)))
const outDir = join(ROOT, '.tmp', 'bench')
mkdirSync(outDir, { recursive: true })

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: ROOT,
    })
    return `${head.toString().trim()}${dirty.length ? ' + uncommitted changes' : ''}`
  } catch {
    return 'unknown'
  }
}

const result: BenchResult = {
  takenAt: new Date().toISOString(),
  commit: commit(),
  machine: { cpus: availableParallelism(), loadAverageBefore: load(), loadAverageAfter: [] },
  firstLoad: [],
  lighthouse: [],
  wizardShift: [],
  failures: [],
}

async function attempt(name: string, work: () => Promise<void>) {
  const started = performance.now()
  process.stdout.write(`… ${name}`)
  try {
    await work()
    console.log(` (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    console.log(` FAILED: ${message}`)
    result.failures.push(`${name}: ${message}`)
  }
}

/** Signs in as the demo Admin once and returns a seeded patient's unsubscribe token. */
async function unsubscribeToken(baseUrl: string): Promise<string> {
  const signIn = await fetch(`${baseUrl}/api/auth/local`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ identifier: 'demo@example.com', password: 'DemoPass123' }),
  })
  if (!signIn.ok) throw new Error(`demo sign-in answered ${signIn.status}`)
  const session = (await signIn.json()) as { jwt: string; practice: { id: number } }
  const patients = await fetch(`${baseUrl}/api/patients/by-practice/${session.practice.id}`, {
    headers: { Authorization: `Bearer ${session.jwt}` },
  })
  const [first] = (await patients.json()) as { id: number }[]
  if (!first) throw new Error('the demo practice has no patient')
  // Staff answers never carry the token; the development route reads it.
  const link = await fetch(`${baseUrl}/api/dev/patients/${first.id}/unsubscribe-id`)
  const token = ((await link.json()) as { unsubscribe_id?: string }).unsubscribe_id
  if (!token) throw new Error('no seeded patient has an unsubscribe token')
  return token
}

/** Sends one of the demo practice's live offers and returns the token of a link it e-mailed. */
async function offerToken(baseUrl: string): Promise<string> {
  const signIn = await fetch(`${baseUrl}/api/auth/local`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ identifier: 'demo@example.com', password: 'DemoPass123' }),
  })
  if (!signIn.ok) throw new Error(`demo sign-in answered ${signIn.status}`)
  const { jwt } = (await signIn.json()) as { jwt: string }
  const headers = { Authorization: `Bearer ${jwt}` }
  const live = await fetch(`${baseUrl}/api/promotions?status=live`, { headers })
  const offer = ((await live.json()) as { data: { id: number }[] }).data[0]
  if (!offer) throw new Error('the demo practice has no live offer')
  const sent = await fetch(`${baseUrl}/api/promotions/${offer.id}/send`, {
    method: 'POST',
    headers,
  })
  if (!sent.ok) throw new Error(`the send answered ${sent.status}`)
  const outbox = await fetch(`${baseUrl}/api/dev/outbox`)
  const messages = ((await outbox.json()) as { messages: { link?: string | null }[] }).messages
  const link = messages.find((m) => m.link?.includes('/offers/'))?.link
  if (!link) throw new Error('no offer e-mail reached the outbox')
  return new URL(link).pathname.split('/').pop() ?? ''
}

console.log(
  `Glow Rewards benchmark, ${result.commit}, ${result.machine.cpus} CPUs, load average ${result.machine.loadAverageBefore.join(' ')}`,
)
// The scale, scale-out, send and checkout parts serve no page, and entry-growth builds its own
// copies: they need no build of dist/.
const buildless: readonly Part[] = [
  'scale',
  'scale-out',
  'send',
  'checkout',
  'entry-growth',
  'nextech',
  'billing',
]
if ([...wanted].some((part) => !buildless.includes(part))) {
  await attempt('production build (only when dist/ is stale)', async () => {
    await ensureBuilt(ROOT)
  })
}

const needsApp = wanted.has('first-load') || wanted.has('lighthouse') || wanted.has('wizard')
if (needsApp) {
  const dataDir = tempDataDir('app')
  let server: ChildServer | undefined
  await attempt('starting the server as npm start does (temp DATA_DIR, free port)', async () => {
    server = await startAppServer({ port: await freePort(), dataDir })
  })
  if (server) {
    const baseUrl = server.url
    const allPages = ['/signin', '/signup', '/thankyou']
    await attempt('finding an unsubscribe link', async () => {
      allPages.push(`/unsubscribe/${await unsubscribeToken(baseUrl)}`)
    })
    await attempt('finding an offer link (the demo Admin sends a live offer)', async () => {
      allPages.push(`/offers/${await offerToken(baseUrl)}`)
    })
    await attempt("finding the patient wallet's page (the demo practice's)", async () => {
      allPages.push(await walletPagePath(baseUrl))
    })
    const pages = pageFilter
      ? allPages.filter((page) => pageFilter.some((prefix) => page.startsWith(prefix)))
      : allPages
    const executablePath = chromiumPath()
    if (wanted.has('first-load') || wanted.has('wizard')) {
      const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS })
      try {
        if (wanted.has('first-load')) {
          for (const path of pages) {
            await attempt(`first load of ${path}`, async () => {
              result.firstLoad.push(await measureFirstLoad(browser, baseUrl, path))
            })
          }
        }
        if (wanted.has('wizard')) {
          for (const viewport of [
            { width: 390, height: 844 },
            { width: 1440, height: 900 },
          ]) {
            await attempt(`wizard layout shift at ${viewport.width} px`, async () => {
              result.wizardShift.push(await measureWizardShift(browser, baseUrl, viewport))
            })
          }
        }
      } finally {
        await browser.close()
      }
    }
    for (const throttling of wanted.has('lighthouse') ? lighthouseThrottling : []) {
      for (const path of pages) {
        const label = `Lighthouse (mobile, ${throttling === 'devtools' ? 'applied' : 'simulated'} throttling) on ${path}, ${lighthouseRuns} runs`
        await attempt(label, async () => {
          const runs: LighthouseResult[] = []
          for (let run = 1; run <= lighthouseRuns; run++) {
            const options = {
              chromePath: executablePath,
              outDir,
              suffix: lighthouseRuns > 1 ? `-${run}` : '',
              throttling,
            }
            // Lighthouse now and then fails to record a trace on a busy machine: one more try.
            runs.push(
              await runLighthouse(baseUrl, path, options).catch(() =>
                runLighthouse(baseUrl, path, options),
              ),
            )
          }
          result.lighthouse.push(medianRun(runs))
        })
      }
    }
    await server.stop()
  }
  removeDir(dataDir)
}

if (wanted.has('api')) {
  await attempt(`API under load (autocannon, ${durationSeconds} s a run)`, async () => {
    result.api = await benchApi({ durationSeconds })
  })
}
if (wanted.has('cold')) {
  await attempt('cold start, fresh and existing DATA_DIR', async () => {
    result.coldStart = await benchColdStart()
  })
}

if (wanted.has('flood')) {
  await attempt('sign-in during a flood of wrong passwords from 200 addresses', async () => {
    result.signInFlood = await benchSignInFlood()
  })
}

if (wanted.has('scale')) {
  const scale = {
    requests: scaleRequests,
    warmUp: 20,
    rounds: SCALE_ROUNDS,
    runs: [] as ScaleRun[],
  }
  result.scale = scale
  for (const database of scaleDatabases()) {
    const label = `portal at scale on ${database.label}: 100, then 10,000 patients and members, 200,000 ledger entries`
    await attempt(label, async () => {
      scale.runs.push(await benchScale(database, scale))
    })
  }
}

let scaleOut: ScaleOutBench | undefined
if (wanted.has('scale-out')) {
  await attempt(
    `the mixed load on 1, then 2 processes on one PostgreSQL (${scaleOutRequests} requests, ${scaleOutConcurrency} at once)`,
    async () => {
      scaleOut = await benchScaleOut({
        requests: scaleOutRequests,
        concurrency: scaleOutConcurrency,
      })
    },
  )
}

if (wanted.has('send')) {
  await attempt('sending an offer to 10,000 patients, on each database', async () => {
    result.offerSend = await benchOfferSend()
  })
}

if (wanted.has('import')) {
  await attempt('importing 10,000 patients from a CSV in Chromium', async () => {
    result.patientImport = await benchImport()
  })
}

if (wanted.has('checkout')) {
  await attempt(
    'SQL statements of one checkout (a visit redeeming with a code), on PGlite',
    async () => {
      result.checkoutStatements = await benchCheckoutStatements()
    },
  )
}

if (wanted.has('entry-growth')) {
  await attempt(
    'the entry chunk with one more route (two builds of HEAD in a temporary copy)',
    async () => {
      result.entryGrowth = benchEntryGrowth(ROOT)
    },
  )
}

let nextech: NextechBench | undefined
if (wanted.has('nextech')) {
  await attempt(
    `the Nextech sync: 10,000 patients, 20,000 appointments, 50,000 bills, then 100 changes (${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`,
    async () => {
      nextech = await benchNextech()
    },
  )
}

let billing: BillingBench | undefined
if (wanted.has('billing')) {
  const database = new URL(billingDatabaseUrl())
  await attempt(
    `a day of membership renewals: ${billingMembers.toLocaleString('en-US')} members, scenarios ${billingScenarios.join(', ')} (PostgreSQL at ${database.host})`,
    async () => {
      billing = await benchBilling({
        members: billingMembers,
        concurrency: billingConcurrency,
        scenarios: billingScenarios,
        onScenario: (s) => process.stdout.write(` [${s.label}: ${s.runSeconds.toFixed(0)} s]`),
      })
      result.failures.push(...billingFailures(billing))
    },
  )
}

result.machine.loadAverageAfter = load()
// A part that ran but could not measure something fails the bench like a part that could not run.
result.failures.push(...unmeasured(result))
const jsonPath = join(ROOT, '.tmp', 'bench.json')
writeFileSync(jsonPath, `${JSON.stringify({ ...result, scaleOut, nextech, billing }, null, 2)}\n`)

const rows = toRows(result)
if (rows.length > 0) console.log(`\n${formatTable(rows)}\n`)
if (result.scale?.runs.length) console.log(`\n${formatScaleTable(result.scale)}\n`)
if (scaleOut?.runs.length) {
  console.log(`\nSeveral processes on one PostgreSQL (the mixed load, round-robin):\n`)
  console.log(`${formatScaleOutTable(scaleOut)}\n`)
}
if (nextech) console.log(`\n${formatNextechTable(nextech)}\n`)
if (billing) console.log(`\n${formatBillingTable(billing)}\n`)
console.log(
  `Load average (1, 5, 15 min): ${result.machine.loadAverageBefore.join(' ')} before, ` +
    `${result.machine.loadAverageAfter.join(' ')} after, on ${result.machine.cpus} CPUs. ` +
    'Figures taken while the machine is loaded (load above the CPU count) are pessimistic: ' +
    'throughput is lower and latencies, TBT and start times are higher than on an idle machine.',
)
console.log(`Written to ${jsonPath}; Lighthouse reports in ${outDir}.`)
for (const failure of result.failures) console.log(`✖ ${failure}`)
process.exit(result.failures.length ? 1 : 0)
