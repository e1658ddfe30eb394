/**
 * `npx tsx scripts/bench/wallet-timing.ts [--contacts=N]`: how long the wallet's public sign-in
 * calls take for a known contact and for an unknown one, side by side (docs/decisions/027-patients-wallet.md,
 * section Server). A measurement, not a test: timing on a shared machine is too noisy to assert in
 * the suite, so the figures are printed here instead.
 *
 * The app runs in this process (`createTestApp`, PGlite, or PostgreSQL too when TEST_DATABASE_URL
 * is set), so the network's noise is not in the figures: a difference the network would hide shows.
 * Each contact is asked once (the per-contact limits allow 5 codes an hour and 4 wrong codes
 * before the lock), known and unknown taking turns, each call from an address of its own; the
 * work a known contact's code causes after the answer (lookup, code, message) is waited for
 * between calls, outside the timed part, as a real server does it between patients.
 */

import {
  createTestApp,
  insertPatient,
  type TestApp,
  testBackends,
} from '#server/testing/test-app.ts'
import { median, percentile } from './stats.ts'

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`))
  return found ? Number(found.split('=')[1]) : fallback
}

const CONTACTS = arg('contacts', 150)

async function timed(t: TestApp, path: string, body: unknown, ip: string) {
  const started = performance.now()
  const response = await t.app.request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  return { ms: performance.now() - started, status: response.status, text }
}

function summary(values: number[]) {
  return { median: median(values), p90: percentile(values, 90), n: values.length }
}

/** The share of (known, unknown) pairs where the known call was slower: 0.5 means no order. */
function slowerShare(known: number[], unknown: number[]): number {
  let slower = 0
  let pairs = 0
  for (const a of known) {
    for (const b of unknown) {
      pairs += 1
      if (a > b) slower += 1
      else if (a === b) slower += 0.5
    }
  }
  return slower / pairs
}

let addresses = 0
const address = () => {
  addresses += 1
  return `10.${Math.floor(addresses / 62500) % 250}.${Math.floor(addresses / 250) % 250}.${(addresses % 250) + 1}`
}

for (const backend of testBackends()) {
  const t = await createTestApp(backend, { trustProxy: true })
  try {
    const practiceId = t.demo.practiceId
    const known: string[] = []
    for (let i = 0; i < CONTACTS; i++) {
      const email = `timing.${i}.${Math.random().toString(36).slice(2, 8)}@example.com`
      await insertPatient(t.db, {
        practice_id: practiceId,
        first_name: 'Tim',
        last_name: 'Ing',
        email,
      })
      known.push(email)
    }
    const unknown = known.map((email) => email.replace('timing.', 'nobody.'))
    const times = {
      code: { known: [] as number[], unknown: [] as number[] },
      session: { known: [] as number[], unknown: [] as number[] },
    }
    const bodies = new Set<string>()
    // A warm-up pair, not counted.
    await timed(t, `/api/wallet/${practiceId}/code`, { contact: 'warm@example.com' }, address())
    for (let i = 0; i < CONTACTS; i++) {
      const order = i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)
      for (const kind of order) {
        const contact = kind === 'known' ? known[i] : unknown[i]
        const code = await timed(t, `/api/wallet/${practiceId}/code`, { contact }, address())
        times.code[kind].push(code.ms)
        bodies.add(`${code.status} ${code.text}`)
        await t.deliver()
      }
      for (const kind of order) {
        const contact = kind === 'known' ? known[i] : unknown[i]
        const session = await timed(
          t,
          `/api/wallet/${practiceId}/session`,
          { contact, code: '000000' },
          address(),
        )
        times.session[kind].push(session.ms)
        bodies.add(`${session.status} ${session.text}`)
      }
    }
    console.log(
      `\nWallet sign-in timing on ${backend.name}: ${CONTACTS} known and ${CONTACTS} unknown contacts`,
    )
    for (const call of ['code', 'session'] as const) {
      const k = summary(times[call].known)
      const u = summary(times[call].unknown)
      console.log(
        `  POST /${call}: known median ${k.median.toFixed(2)} ms (p90 ${k.p90.toFixed(2)}), unknown median ${u.median.toFixed(2)} ms (p90 ${u.p90.toFixed(2)}); difference of medians ${(k.median - u.median).toFixed(2)} ms (${(((k.median - u.median) / u.median) * 100).toFixed(1)}%); known slower in ${(slowerShare(times[call].known, times[call].unknown) * 100).toFixed(0)}% of pairs (50% = no order)`,
      )
    }
    console.log(`  distinct answers (status and body) across all calls: ${bodies.size}`)
    for (const body of bodies) console.log(`    ${body.slice(0, 160)}`)
  } finally {
    await t.close()
  }
}
