import { randomBytes } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { LEDGER_MESSAGES } from '#domain/ledger.ts'
import type {
  NextechReviewItem,
  NextechRun,
  NextechServiceCode,
  NextechStatus,
} from '#domain/nextech.ts'
import type { AppType } from '#server/app.ts'
import {
  appointments,
  ledgerEntries,
  nextechClaimLines,
  nextechConnections,
  nextechSyncRuns,
  outbox,
  patients,
  practices,
  procedures,
  users,
} from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createNextechClient } from '#server/nextech/client.ts'
import type { NextechConnector } from '#server/nextech/connector.ts'
import {
  createNextechSandbox,
  type SandboxBillInput,
  type SandboxPatient,
} from '#server/nextech/sandbox.ts'
import type { Waiting } from '#server/nextech/throttle.ts'
import { useTestApp } from '#server/testing/suite.ts'
import {
  createMember,
  insertSandboxNextechPractice,
  type TestApp,
  testBackends,
} from '#server/testing/test-app.ts'

const DATA_KEY = randomBytes(32)
const BASE = 'http://nextech.test/nextech-sandbox'

/**
 * Waits that do not wait: a clock of its own that moves by what is slept, so the token buckets
 * and the retries' backoff cost no time (what they asked for is still what they waited).
 */
function noWaiting(): Waiting {
  let at = 0
  return {
    clock: () => at,
    sleep: async (ms) => {
      at += ms
    },
  }
}

type Fault = (url: string, attempt: number) => Response | undefined

/** A practice connected to a sandbox of its own, through an app of its own. */
async function connectedPractice(
  t: TestApp,
  people: SandboxPatient[],
  options: { fault?: Fault; fromConnection?: boolean } = {},
) {
  // Nextech's limit is not what these tests are about: the sandbox's second passes at each call.
  let second = 0
  const sandbox = createNextechSandbox({
    now: () => new Date(),
    patients: people,
    claims: [],
    rateClock: () => (second += 1000),
  })
  const urls: string[] = []
  let fault = options.fault
  let gate: Promise<void> | undefined
  const fetchFor = (gated: boolean) => async (input: string, init: RequestInit) => {
    if (gated && gate && input.includes('/api/Claim')) await gate
    urls.push(input)
    const faulty = fault?.(input, urls.length)
    if (faulty) return faulty
    return sandbox.fetch(input, init)
  }
  const connector = (gated = true): NextechConnector => ({
    client: createNextechClient({
      tokenUrl: `${BASE}/nextech-api.com/oauth2/token`,
      apiUrl: `${BASE}/api`,
      fetch: fetchFor(gated),
    }),
    mode: 'sandbox',
    sandbox,
    waiting: noWaiting(),
  })
  const practiceId = await insertSandboxNextechPractice(t.db, DATA_KEY, 'Nextech Practice')
  const admin = await createMember(t.db, practiceId, 'Admin')
  const staff = await createMember(t.db, practiceId, 'Staff')
  const app = t.makeApp({}, { nextech: connector() })
  const call = (target: AppType, path: string, init: Parameters<TestApp['request']>[1] = {}) =>
    t.requestOn(target, `/api/practice/integrations/nextech${path}`, {
      token: admin.token,
      ...init,
    })
  const tested = await call(app, '/test', { method: 'POST' })
  expect(await tested.json()).toMatchObject({ ok: true })
  // Bills from the day of the connection on earn; most tests' bills are dated today, and earn
  // whatever day the test runs (a connection made just before midnight UTC is yesterday's).
  if (!options.fromConnection) {
    await t.db
      .update(nextechConnections)
      .set({ award_from: '2000-01-01' })
      .where(eq(nextechConnections.practice_id, practiceId))
  }

  /** "Sync now", then the run followed to its end. */
  const syncOn = async (target: AppType = app): Promise<NextechRun> => {
    const started = await call(target, '/sync', { method: 'POST' })
    expect(started.status).toBe(202)
    const { run_id } = (await started.json()) as { run_id: number }
    return vi.waitFor(
      async () => {
        const run = (await (await call(target, `/runs/${run_id}`)).json()) as NextechRun
        expect(run.status).not.toBe('running')
        return run
      },
      { timeout: 30_000, interval: 5 },
    )
  }
  const points = async (patientId: number) => {
    const [row] = await t.db
      .select({ points: patients.points })
      .from(patients)
      .where(eq(patients.id, patientId))
    return row?.points
  }
  const glowPatient = async (email: string) => {
    const [row] = await t.db
      .select({
        id: patients.id,
        points: patients.points,
        email_subscription: patients.email_subscription,
      })
      .from(patients)
      .where(and(eq(patients.practice_id, practiceId), eq(patients.email, email)))
    return row
  }
  const entries = async () => {
    const [row] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.practice_id, practiceId))
    return Number(row?.n)
  }
  return {
    sandbox,
    practiceId,
    admin,
    staff,
    app,
    urls,
    call: (path: string, init?: Parameters<TestApp['request']>[1]) => call(app, path, init),
    /**
     * A second app over the same database and sandbox: another server process (its requests are
     * never held by {@link holdBills}).
     */
    secondApp: () => t.makeApp({}, { nextech: connector(false) }),
    setFault: (next: Fault | undefined) => {
      fault = next
    },
    /** Holds the first app's requests for bills until the answer is called. */
    holdBills: () => {
      let release: () => void = () => undefined
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = undefined
          resolve()
        }
      })
      return release
    },
    /** "Sync now" on `target`, answering the run's id without following it. */
    startOn: async (target: AppType) => {
      const started = await call(target, '/sync', { method: 'POST' })
      expect(started.status).toBe(202)
      return ((await started.json()) as { run_id: number }).run_id
    },
    sync: syncOn,
    points,
    glowPatient,
    entries,
  }
}

/** `count` bills of one `SVC` line at `unitPrice` (Service 0, 1, …), each for `patientId`'s patient. */
function addServiceBills(
  n: { sandbox: { store: { addBill: (bill: SandboxBillInput) => unknown } } },
  count: number,
  unitPrice: number,
  patientId: string | ((i: number) => string),
) {
  for (let i = 0; i < count; i += 1) {
    n.sandbox.store.addBill({
      patientId: typeof patientId === 'string' ? patientId : patientId(i),
      items: [{ code: 'SVC', text: `Service ${i}`, unitPrice }],
    })
  }
}

const person = (
  id: string,
  given: string,
  family: string,
  extra: Partial<SandboxPatient> = {},
) => ({
  id,
  given,
  family,
  email: `${given}.${family}.${id}@example.com`.toLowerCase(),
  lastUpdated: '2026-11-01T10:00:00+00:00',
  ...extra,
})

describe.each(testBackends())('the Nextech sync on $name, against the sandbox', (backend) => {
  const t = useTestApp(backend, { dataKey: DATA_KEY })

  it('creates and links patients, brings appointments, and turns bills into points once', async () => {
    const n = await connectedPractice(t, [
      person('1', 'Ana', 'Rivera'),
      person('2', 'Grace', 'Chen', { excludeFromMailings: true }),
    ])
    // Ana is already a patient here, under the same e-mail and name: she is linked, not doubled.
    const [ana] = await t.db
      .insert(patients)
      .values({
        practice_id: n.practiceId,
        first_name: 'Ana',
        last_name: 'Rivera',
        email: 'ana.rivera.1@example.com',
        unsubscribe_id: randomToken(),
      })
      .returning({ id: patients.id })
    n.sandbox.store.addBill({
      patientId: '1',
      items: [
        { code: 'BTX20', text: 'Botox 20 units', unitPrice: 240 },
        { code: 'HYDRA', text: 'HydraFacial', unitPrice: 199.99 },
      ],
    })
    n.sandbox.store.addBill({
      patientId: '2',
      use: 'exploratory',
      items: [{ code: 'LASER', text: 'Laser quote', unitPrice: 900 }],
    })
    n.sandbox.store.addAppointment({
      patientId: '2',
      status: 'noshow',
      start: '2026-11-20T15:00:00-06:00',
      end: '2026-11-20T16:00:00-06:00',
      type: 'Consult',
    })

    const run = await n.sync()
    expect(run).toMatchObject({ status: 'done', error: null })
    expect(run.counts).toMatchObject({
      patients_created: 1,
      patients_linked: 1,
      patients_to_review: 0,
      appointments: 1,
      bills: 1,
      points_awarded: 240 + 199,
    })
    expect(await n.points(ana?.id ?? 0)).toBe(439)
    const grace = await n.glowPatient('grace.chen.2@example.com')
    // Excluded from mailings in Nextech: no marketing e-mail here; the quote earned nothing.
    expect(grace).toMatchObject({ points: 0, email_subscription: false })
    const [appointment] = await t.db
      .select()
      .from(appointments)
      .where(eq(appointments.practice_id, n.practiceId))
    expect(appointment).toMatchObject({ status: 'cancelled', nextech_status: 'noshow' })

    // The patient's history says where the points came from.
    const history = await t.request(`/api/patients/${ana?.id}/ledger`, { token: n.admin.token })
    const body = (await history.json()) as { data: { reason: string | null }[] }
    expect(body.data.map((entry) => entry.reason)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Nextech bill \d+, Botox 20 units$/)]),
    )

    // The same window again, and a whole re-read from nothing: nothing is posted twice.
    const before = await n.entries()
    expect((await n.sync()).counts.points_awarded).toBe(0)
    await t.db
      .update(nextechConnections)
      .set({ watermarks: {} })
      .where(eq(nextechConnections.practice_id, n.practiceId))
    expect((await n.sync()).counts).toMatchObject({ points_awarded: 0, patients_created: 0 })
    expect(await n.entries()).toBe(before)
    expect(await n.points(ana?.id ?? 0)).toBe(439)

    const status = (await (await n.call('')).json()) as NextechStatus
    expect(status.sync).toMatchObject({
      review_count: 0,
      unmapped_count: 2,
      running_run_id: null,
    })
    expect(status.sync.last_sync_at).not.toBeNull()
    expect(status.sync.counts.points_awarded).toBe(439)
  })

  it('reverses voids exactly, and a correction leaves the difference', async () => {
    const n = await connectedPractice(t, [person('1', 'Daniel', 'Okafor')])
    const first = n.sandbox.store.addBill({
      patientId: '1',
      items: [
        { code: 'BTX20', text: 'Botox 20 units', unitPrice: 240 },
        { code: 'PEEL', text: 'Chemical peel', unitPrice: 150 },
      ],
    })
    const second = n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'HYDRA', text: 'HydraFacial', unitPrice: 200 }],
    })
    await n.sync()
    const daniel = await n.glowPatient('daniel.okafor.1@example.com')
    expect(daniel?.points).toBe(590)

    n.sandbox.store.voidLine(first.id, 2) // the peel: −150
    n.sandbox.store.voidBill(second.id) // −200
    const corrected = n.sandbox.store.correctBill(first.id, [
      { code: 'BTX20', text: 'Botox 20 units', unitPrice: 260 },
    ]) // −240 +260
    const run = await n.sync()
    expect(run.counts).toMatchObject({ points_awarded: 260, points_reversed: 150 + 200 + 240 })
    expect(await n.points(daniel?.id ?? 0)).toBe(260)
    expect(corrected.status).toBe('active')
    // Read again: the voids are not reversed twice.
    expect((await n.sync()).counts.points_reversed).toBe(0)
    expect(await n.points(daniel?.id ?? 0)).toBe(260)
  })

  it('sends a reversal of spent points to the review queue with the ledger’s sentence', async () => {
    const n = await connectedPractice(t, [person('1', 'Mia', 'Lopez')])
    const bill = n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'BTX20', text: 'Botox 20 units', unitPrice: 300 }],
    })
    await n.sync()
    const mia = await n.glowPatient('mia.lopez.1@example.com')
    const spent = await t.request(`/api/patients/${mia?.id}/adjustments`, {
      method: 'POST',
      token: n.admin.token,
      json: { points: -250, reason: 'gift card', idempotencyKey: randomToken() },
    })
    expect(spent.status).toBe(201)
    n.sandbox.store.voidBill(bill.id)
    await n.sync()
    expect(await n.points(mia?.id ?? 0)).toBe(50)
    const queue = (await (await n.call('/review')).json()) as { items: NextechReviewItem[] }
    expect(queue.items).toHaveLength(1)
    expect(queue.items[0]).toMatchObject({ kind: 'reversal', bill: { points: 300 } })
    expect(queue.items[0]?.message).toContain(LEDGER_MESSAGES.alreadySpent)
    const dismissed = await n.call(`/review/${queue.items[0]?.id}`, {
      method: 'POST',
      json: { action: 'ignore' },
    })
    expect(await dismissed.json()).toEqual({ items: [] })
  })

  it('queues an ambiguous patient instead of guessing, and its bills and appointments come once linked', async () => {
    const n = await connectedPractice(t, [
      person('1', 'Sam', 'Taylor', { phone: '(512) 555-0101', email: undefined }),
    ])
    const twins = await t.db
      .insert(patients)
      .values(
        ['Sam', 'Sasha'].map((first) => ({
          practice_id: n.practiceId,
          first_name: first,
          last_name: 'Taylor',
          phone: '+15125550101',
          unsubscribe_id: randomToken(),
        })),
      )
      .returning({ id: patients.id })
    n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'HYDRA', text: 'HydraFacial', unitPrice: 180 }],
    })
    n.sandbox.store.addAppointment({
      patientId: '1',
      status: 'booked',
      start: '2026-12-02T10:00:00-06:00',
      end: '2026-12-02T11:00:00-06:00',
      type: 'HydraFacial',
    })
    const appointmentsOf = (patientId: number) =>
      t.db
        .select({ nextech_id: appointments.nextech_id, notes: appointments.notes })
        .from(appointments)
        .where(eq(appointments.patient_id, patientId))
    const run = await n.sync()
    expect(run.counts).toMatchObject({ patients_to_review: 1, points_awarded: 0, appointments: 0 })
    const queue = (await (await n.call('/review')).json()) as { items: NextechReviewItem[] }
    expect(queue.items[0]).toMatchObject({
      kind: 'patient',
      nextech_patient: { id: '1', first_name: 'Sam', last_name: 'Taylor' },
    })
    expect(queue.items[0]?.candidates.map((c) => c.id).sort()).toEqual(
      twins.map((twin) => twin.id).sort(),
    )
    const target = twins[1]?.id ?? 0
    const refused = await t.request(
      `/api/practice/integrations/nextech/review/${queue.items[0]?.id}`,
      { method: 'POST', token: n.staff.token, json: { action: 'link', patient_id: target } },
    )
    expect(refused.status).toBe(403)
    const resolved = await n.call(`/review/${queue.items[0]?.id}`, {
      method: 'POST',
      json: { action: 'link', patient_id: target },
    })
    expect(await resolved.json()).toEqual({ items: [] })
    // The bill that waited earns now, the appointment read before is in the Appointments area;
    // syncing again changes nothing.
    expect(await n.points(target)).toBe(180)
    expect(await appointmentsOf(target)).toEqual([
      { nextech_id: expect.any(String), notes: 'HydraFacial' },
    ])
    expect((await n.sync()).counts.points_awarded).toBe(0)
    expect(await n.points(target)).toBe(180)
    expect(await appointmentsOf(target)).toHaveLength(1)
    expect(await appointmentsOf(twins[0]?.id ?? 0)).toEqual([])
  })

  it('retries 429s and 5xx, and a sync cut off resumes from its page without a gap or a double', async () => {
    const people = Array.from({ length: 3 }, (_, i) => person(String(i + 1), `P${i}`, 'Page'))
    const n = await connectedPractice(t, people)
    addServiceBills(n, 101, 10, (i) => String((i % 3) + 1))
    let claims = 0
    // Three pages (50, 50, 1); after the second Nextech stops answering for the rest of the run.
    let pagesServed = 0
    n.setFault((url) => {
      if (!url.includes('/api/Claim')) return undefined
      claims += 1
      if (pagesServed >= 2) return new Response('', { status: 503 })
      if (claims % 3 === 1) {
        return new Response('', { status: 429, headers: { 'Retry-After': '0' } })
      }
      if (claims % 3 === 2) return new Response('', { status: 500 })
      pagesServed += 1
      return undefined
    })
    const cut = await n.sync()
    expect(cut.status).toBe('failed')
    expect(cut.error).toMatch(/could not be reached/)
    const awardedFirst = cut.counts.points_awarded
    expect(awardedFirst).toBe(100 * 10)

    n.setFault(undefined)
    const claimUrlsBefore = n.urls.filter((url) => url.includes('/api/Claim')).length
    const resumed = await n.sync()
    expect(resumed.status).toBe('done')
    const resumedUrls = n.urls.filter((url) => url.includes('/api/Claim')).slice(claimUrlsBefore)
    // It went on from the third page, not from the first.
    expect(resumedUrls[0]).toMatch(/page=3/)
    expect(resumed.counts.points_awarded).toBe(1 * 10)
    let total = 0
    for (const p of people) {
      total += (await n.glowPatient(p.email))?.points ?? 0
    }
    expect(total).toBe(101 * 10)
  })

  it('gives a referrer the referral bonus once, at the first bill of the patient they referred, whichever comes first', async () => {
    // Ann referred Ben; Cal was referred by Dee, whom Nextech has not sent yet.
    const ann = person('1', 'Ann', 'Referrer')
    const ben = person('2', 'Ben', 'Referred', { referringPatientId: '1' })
    const cal = person('3', 'Cal', 'Early', { referringPatientId: '4' })
    const n = await connectedPractice(t, [ann, ben, cal])
    await t.db.update(practices).set({ referral_bonus: 300 }).where(eq(practices.id, n.practiceId))
    const bill = (patientId: string, text: string) =>
      n.sandbox.store.addBill({ patientId, items: [{ code: 'SVC', text, unitPrice: 20 }] })

    // No bill yet: no bonus, the link alone earns nothing.
    await n.sync()
    expect((await n.glowPatient(ann.email))?.points).toBe(0)

    bill('2', 'First facial')
    bill('2', 'Second facial')
    bill('3', 'Peel')
    const first = await n.sync()
    expect(first.status).toBe('done')
    expect((await n.glowPatient(ann.email))?.points).toBe(300)
    expect((await n.glowPatient(ben.email))?.points).toBe(40)
    expect(first.counts.points_awarded).toBe(40 + 20 + 300)
    const annId = (await n.glowPatient(ann.email))?.id as number
    const [bonus] = await t.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.patient_id, annId), eq(ledgerEntries.kind, 'bonus')))
    expect(bonus).toMatchObject({
      points: 300,
      source_type: 'nextech',
      reason: 'Referred Ben Referred, whose first bill from Nextech earned points',
    })

    // A later bill, and the same window read again, give nothing more.
    bill('2', 'Third facial')
    await n.sync()
    await t.db
      .update(nextechConnections)
      .set({ watermarks: {} })
      .where(eq(nextechConnections.practice_id, n.practiceId))
    const before = await n.entries()
    const again = await n.sync()
    expect(again.counts.points_awarded).toBe(0)
    expect(await n.entries()).toBe(before)
    expect((await n.glowPatient(ann.email))?.points).toBe(300)

    // Dee comes after Cal's bill: her link gives her the bonus.
    n.sandbox.store.addPatient(person('4', 'Dee', 'Late'))
    const late = await n.sync()
    expect(late.counts.points_awarded).toBe(300)
    expect((await n.glowPatient('dee.late.4@example.com'))?.points).toBe(300)
    expect((await n.glowPatient(cal.email))?.points).toBe(20)
  })

  it('resumes a sync cut off after any page, without a gap or a double', async () => {
    const people = [person('1', 'Cut', 'Off')]
    // Three pages of bills (50, 50, 1): cut before the first, after the first, after the second.
    for (const served of [0, 1, 2]) {
      const n = await connectedPractice(t, people)
      addServiceBills(n, 101, 5, '1')
      let pages = 0
      n.setFault((url) => {
        if (!url.includes('/api/Claim')) return undefined
        if (pages >= served) return new Response('', { status: 502 })
        pages += 1
        return undefined
      })
      const cut = await n.sync()
      expect(cut.status).toBe('failed')
      expect(cut.counts.points_awarded).toBe(served * 50 * 5)
      n.setFault(undefined)
      const resumed = await n.sync()
      expect(resumed.counts.points_awarded).toBe((101 - served * 50) * 5)
      expect((await n.glowPatient('cut.off.1@example.com'))?.points).toBe(505)
      expect(await n.entries()).toBe(101)
    }
  })

  it('takes over from a process that died holding the sync, once its lease lapses', async () => {
    const n = await connectedPractice(t, [person('1', 'Dee', 'Crash')])
    addServiceBills(n, 60, 3, '1')
    // The first process reads its first page of bills and never gets an answer to the next.
    let claims = 0
    let hang: () => void = () => undefined
    n.setFault((url) => {
      if (url.includes('/api/Claim')) claims += 1
      return undefined
    })
    const release = n.holdBills()
    const dead = await n.startOn(n.app)
    // While the lease holds, a second process answers the dead one's run.
    const other = n.secondApp()
    expect(await n.startOn(other)).toBe(dead)
    hang = release
    // The first process is dead once nothing of it moves but the request that never ends: its
    // walk of appointments, which renews the lease too, has ended.
    await vi.waitFor(
      async () => {
        const [row] = await t.db
          .select({ watermarks: nextechConnections.watermarks })
          .from(nextechConnections)
          .where(eq(nextechConnections.practice_id, n.practiceId))
        const marks = row?.watermarks as Record<string, { walk: unknown }> | undefined
        expect(marks?.Appointment).toMatchObject({ walk: null })
      },
      { timeout: 30_000, interval: 5 },
    )
    t.setNow(new Date(Date.now() + 3 * 60 * 1000))
    try {
      // With its lease lapsed the dead run is not shown as going (Settings would show a sync
      // running until the next one took its place).
      const status = (await (await n.call('')).json()) as { sync: { running_run_id: unknown } }
      expect(status.sync.running_run_id).toBeNull()
      const taken = await n.sync(other)
      expect(taken.id).not.toBe(dead)
      expect(taken.status).toBe('done')
      expect((await n.glowPatient('dee.crash.1@example.com'))?.points).toBe(180)
      // The dead run is marked as such.
      const old = (await (await n.call(`/runs/${dead}`)).json()) as NextechRun
      expect(old).toMatchObject({ status: 'failed' })
    } finally {
      hang()
      t.setNow(undefined)
    }
    expect(claims).toBeGreaterThan(0)
    expect(await n.entries()).toBe(60)
  })

  it('syncs one practice once when two server processes are asked at the same time', async () => {
    const n = await connectedPractice(t, [person('1', 'Lee', 'Park')])
    addServiceBills(n, 30, 20, '1')
    const other = n.secondApp()
    // The first process's run waits at its first page of bills while the second is asked.
    const release = n.holdBills()
    const [a, b] = await Promise.all([n.startOn(n.app), n.startOn(other)])
    // One of them runs; the other answers the same run.
    expect(a).toBe(b)
    release()
    await n.sync(other)
    const lee = await n.glowPatient('lee.park.1@example.com')
    expect(lee?.points).toBe(600)
    expect(await n.entries()).toBe(30)
  })

  it('answers the run going when the same process is asked again, without marking it interrupted', async () => {
    // A server connecting a practice starts its first sync, and its schedule's first tick asks
    // again at once: the second ask is the first run, not a second beside it.
    const n = await connectedPractice(t, [person('1', 'Lee', 'Park')])
    addServiceBills(n, 5, 20, '1')
    const release = n.holdBills()
    const first = await n.startOn(n.app)
    const again = await n.startOn(n.app)
    expect(again).toBe(first)
    release()
    const run = await vi.waitFor(
      async () => {
        const read = (await (await n.call(`/runs/${first}`)).json()) as NextechRun
        expect(read.status).not.toBe('running')
        return read
      },
      { timeout: 30_000, interval: 5 },
    )
    expect(run).toMatchObject({ id: first, status: 'done', error: null })
    // Once it is over, the next ask is a new run.
    expect((await n.sync()).id).toBeGreaterThan(first)
    const runs = await t.db
      .select({ id: nextechSyncRuns.id, status: nextechSyncRuns.status })
      .from(nextechSyncRuns)
      .where(eq(nextechSyncRuns.practice_id, n.practiceId))
      .orderBy(nextechSyncRuns.id)
    expect(runs).toEqual([
      { id: first, status: 'done' },
      { id: expect.any(Number), status: 'done' },
    ])
    expect((await n.glowPatient('lee.park.1@example.com'))?.points).toBe(100)
  })

  it('lists unmapped service codes, and a mapped code earns as its catalogue item', async () => {
    const n = await connectedPractice(t, [person('1', 'Ivy', 'Nguyen')])
    const [peel] = await t.db
      .insert(procedures)
      .values({ practice_id: n.practiceId, name: 'Signature peel', price: 15000, points: 500 })
      .returning({ id: procedures.id })
    n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'PEEL', text: 'Chemical peel', unitPrice: 150 }],
    })
    await n.sync()
    const ivy = await n.glowPatient('ivy.nguyen.1@example.com')
    expect(ivy?.points).toBe(150)
    const listed = (await (await n.call('/unmapped')).json()) as { codes: NextechServiceCode[] }
    expect(listed.codes).toEqual([
      { code: 'PEEL', text: 'Chemical peel', lines: 1, mapped_to: null },
    ])
    const mapped = await n.call('/unmapped/PEEL', {
      method: 'PUT',
      json: { catalogue_item_id: peel?.id, kind: 'procedure' },
    })
    expect(((await mapped.json()) as { codes: NextechServiceCode[] }).codes[0]?.mapped_to).toEqual({
      kind: 'procedure',
      id: peel?.id,
      name: 'Signature peel',
    })
    n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'PEEL', text: 'Chemical peel', unitPrice: 150 }],
    })
    await n.sync()
    expect(await n.points(ivy?.id ?? 0)).toBe(150 + 500)
    const status = (await (await n.call('')).json()) as NextechStatus
    expect(status.sync.unmapped_count).toBe(0)
  })

  it("keeps a mapped item's minimum days between awards, as checkout does", async () => {
    const n = await connectedPractice(t, [person('1', 'Min', 'Days')])
    const [laser] = await t.db
      .insert(procedures)
      .values({
        practice_id: n.practiceId,
        name: 'Laser resurfacing',
        price: 30000,
        points: 300,
        min_days_between: 30,
      })
      .returning({ id: procedures.id })
    n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'LASER', text: 'Laser', unitPrice: 300 }],
    })
    await n.sync()
    await n.call('/unmapped/LASER', {
      method: 'PUT',
      json: { catalogue_item_id: laser?.id, kind: 'procedure' },
    })
    // Two more laser bills today: the first earns as the item does, the second must wait.
    for (let i = 0; i < 2; i += 1) {
      n.sandbox.store.addBill({
        patientId: '1',
        items: [{ code: 'LASER', text: 'Laser', unitPrice: 300 }],
      })
    }
    await n.sync()
    const patient = await n.glowPatient('min.days.1@example.com')
    expect(patient?.points).toBe(300 + 300)
    const [line] = await t.db
      .select({ note: nextechClaimLines.note })
      .from(nextechClaimLines)
      .where(
        and(eq(nextechClaimLines.practice_id, n.practiceId), eq(nextechClaimLines.state, 'none')),
      )
    expect(line?.note).toMatch(/^Laser resurfacing earns points again on \d{4}-\d{2}-\d{2}\.$/)
  })

  it('holds a line above the ceiling for a person, who may award it', async () => {
    const n = await connectedPractice(t, [person('1', 'Zoe', 'Kim')])
    n.sandbox.store.addBill({
      patientId: '1',
      items: [{ code: 'TYPO', text: 'Filler (typed 350000)', unitPrice: 350_000 }],
    })
    const run = await n.sync()
    expect(run.counts.points_awarded).toBe(0)
    const zoe = await n.glowPatient('zoe.kim.1@example.com')
    expect(zoe?.points).toBe(0)
    const queue = (await (await n.call('/review')).json()) as { items: NextechReviewItem[] }
    expect(queue.items[0]).toMatchObject({ kind: 'ceiling', bill: { points: 350_000 } })
    const wrong = await n.call(`/review/${queue.items[0]?.id}`, {
      method: 'POST',
      json: { action: 'create' },
    })
    expect(wrong.status).toBe(422)
    await n.call(`/review/${queue.items[0]?.id}`, { method: 'POST', json: { action: 'award' } })
    expect(await n.points(zoe?.id ?? 0)).toBe(350_000)
  })

  it('keeps every balance equal to the bills left in Nextech, through random voids, corrections, cut-off syncs and re-reads', async () => {
    type Op =
      | { kind: 'bill'; patient: number; prices: number[] }
      | { kind: 'void'; pick: number }
      | { kind: 'voidLine'; pick: number }
      | { kind: 'correct'; pick: number; price: number }
      | { kind: 'sync' }
      | { kind: 'cut'; after: number }
      | { kind: 'reread' }
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        kind: fc.constant('bill' as const),
        patient: fc.integer({ min: 1, max: 2 }),
        prices: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('voidLine' as const), pick: fc.nat() }),
      fc.record({
        kind: fc.constant('correct' as const),
        pick: fc.nat(),
        price: fc.integer({ min: 1, max: 400 }),
      }),
      fc.constant({ kind: 'sync' as const }),
      fc.record({ kind: fc.constant('cut' as const), after: fc.integer({ min: 0, max: 3 }) }),
      fc.constant({ kind: 'reread' as const }),
    )
    let sequences = 0
    let steps = 0
    await fc.assert(
      fc.asyncProperty(
        // At most 5 syncs asked besides the last: "Sync now" takes 6 a minute per practice.
        fc
          .array(op, { minLength: 1, maxLength: 12 })
          .filter((ops) => ops.filter((o) => o.kind === 'sync' || o.kind === 'cut').length <= 5),
        async (ops) => {
          sequences += 1
          const n = await connectedPractice(t, [
            person('1', 'Prop', 'One'),
            person('2', 'Prop', 'Two'),
          ])
          const store = n.sandbox.store
          const active = () =>
            store.claims().filter((claim) => claim.status === 'active' && claim.use === 'complete')
          for (const step of ops) {
            steps += 1
            const bills = active()
            const chosen =
              bills.length > 0 ? bills[('pick' in step ? step.pick : 0) % bills.length] : undefined
            if (step.kind === 'bill') {
              store.addBill({
                patientId: String(step.patient),
                items: step.prices.map((price, i) => ({
                  code: `C${i}`,
                  text: `Line ${i}`,
                  unitPrice: price,
                })),
              })
            } else if (step.kind === 'void' && chosen) {
              store.voidBill(chosen.id)
            } else if (step.kind === 'voidLine' && chosen) {
              const line = chosen.items.find((item) => !item.voided)
              if (line && chosen.items.filter((item) => !item.voided).length > 1) {
                store.voidLine(chosen.id, line.sequence)
              }
            } else if (step.kind === 'correct' && chosen) {
              store.correctBill(chosen.id, [
                { code: 'C9', text: 'Corrected', unitPrice: step.price },
              ])
            } else if (step.kind === 'sync') {
              expect((await n.sync()).status).toBe('done')
            } else if (step.kind === 'cut') {
              let served = 0
              n.setFault((url) => {
                if (!url.includes('/api/Claim')) return undefined
                served += 1
                return served > step.after ? new Response('', { status: 503 }) : undefined
              })
              await n.sync()
              n.setFault(undefined)
            } else if (step.kind === 'reread') {
              await t.db
                .update(nextechConnections)
                .set({ watermarks: {} })
                .where(eq(nextechConnections.practice_id, n.practiceId))
            }
          }
          expect((await n.sync()).status).toBe('done')
          for (const id of ['1', '2']) {
            const expected = active()
              .filter((claim) => claim.patientId === id)
              .flatMap((claim) => claim.items.filter((item) => !item.voided))
              .reduce((sum, item) => sum + item.quantity * item.unitPrice, 0)
            const glow = await n.glowPatient(`prop.${id === '1' ? 'one' : 'two'}.${id}@example.com`)
            expect(glow?.points ?? 0).toBe(expected)
            // The cached balance is the sum of the ledger's entries.
            const [sum] = await t.db
              .select({ n: sql<number>`coalesce(sum(${ledgerEntries.points}), 0)::int` })
              .from(ledgerEntries)
              .where(eq(ledgerEntries.patient_id, glow?.id ?? 0))
            expect(Number(sum?.n)).toBe(expected)
          }
        },
      ),
      { numRuns: Number(process.env.NEXTECH_PROPERTY_RUNS ?? 8), seed: 32 },
    )
    expect(sequences).toBe(Number(process.env.NEXTECH_PROPERTY_RUNS ?? 8))
    expect(steps).toBeGreaterThan(8)
  })

  it('awards older bills only when an Admin backfills them, after a preview, once', async () => {
    const n = await connectedPractice(t, [person('1', 'Old', 'Bills')], { fromConnection: true })
    for (const [created, price] of [
      ['2026-03-02T15:00:00Z', 100],
      ['2026-06-10T15:00:00Z', 250],
      ['2025-12-20T15:00:00Z', 999],
    ] as const) {
      n.sandbox.store.addBill({
        patientId: '1',
        created,
        items: [{ code: 'OLD', text: 'Older visit', unitPrice: price }],
      })
    }
    const run = await n.sync()
    expect(run.counts.points_awarded).toBe(0)
    const old = await n.glowPatient('old.bills.1@example.com')
    expect(old?.points).toBe(0)
    const preview = await n.call('/backfill', {
      method: 'POST',
      json: { since: '2026-01-01', preview: true },
    })
    expect(await preview.json()).toMatchObject({
      lines: 2,
      bills: 2,
      patients: 1,
      points: 350,
      applied: false,
    })
    expect(await n.points(old?.id ?? 0)).toBe(0)
    const staff = await t.requestOn(n.app, '/api/practice/integrations/nextech/backfill', {
      method: 'POST',
      token: n.staff.token,
      json: { since: '2026-01-01' },
    })
    expect(staff.status).toBe(403)
    const applied = await n.call('/backfill', { method: 'POST', json: { since: '2026-01-01' } })
    expect(await applied.json()).toMatchObject({ lines: 2, points: 350, applied: true })
    expect(await n.points(old?.id ?? 0)).toBe(350)
    const again = await n.call('/backfill', { method: 'POST', json: { since: '2026-01-01' } })
    expect(await again.json()).toMatchObject({ lines: 0, points: 0 })
    expect(await n.points(old?.id ?? 0)).toBe(350)
    const bad = await n.call('/backfill', { method: 'POST', json: { since: '2026-02-30' } })
    expect(bad.status).toBe(400)
  })

  it('e-mails the Admins once when syncing has failed for an hour, and again only after it worked', async () => {
    const n = await connectedPractice(t, [person('1', 'Fay', 'Lure')])
    const [admin] = await t.db
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, n.admin.user.id))
    const mails = async () => {
      await t.deliver()
      return t.db
        .select({ subject: outbox.subject, text: outbox.text })
        .from(outbox)
        .where(and(eq(outbox.to, admin?.email ?? ''), eq(outbox.channel, 'email')))
    }
    n.setFault((url) => (url.includes('/api/') ? new Response('', { status: 503 }) : undefined))
    const start = Date.now()
    try {
      expect((await n.sync()).status).toBe('failed')
      t.setNow(new Date(start + 30 * 60 * 1000))
      expect((await n.sync()).status).toBe('failed')
      expect(await mails()).toEqual([])
      t.setNow(new Date(start + 61 * 60 * 1000))
      await n.sync()
      t.setNow(new Date(start + 90 * 60 * 1000))
      await n.sync()
      const sent = await mails()
      expect(sent).toHaveLength(1)
      expect(sent[0]?.subject).toMatch(/^Nextech sync has been failing for an hour/)
      expect(sent[0]?.text).toContain('could not be reached')
      // It works again; a new hour of failures is a new e-mail.
      n.setFault(undefined)
      expect((await n.sync()).status).toBe('done')
      n.setFault((url) => (url.includes('/api/') ? new Response('', { status: 503 }) : undefined))
      t.setNow(new Date(start + 100 * 60 * 1000))
      await n.sync()
      t.setNow(new Date(start + 170 * 60 * 1000))
      await n.sync()
      expect(await mails()).toHaveLength(2)
    } finally {
      t.setNow(undefined)
    }
  })

  it('refuses a sync of a practice that is not connected, and Staff', async () => {
    const n = await connectedPractice(t, [person('1', 'Al', 'Bert')])
    const staff = await t.requestOn(n.app, '/api/practice/integrations/nextech/sync', {
      method: 'POST',
      token: n.staff.token,
    })
    expect(staff.status).toBe(403)
    const gone = await n.call('', { method: 'DELETE' })
    expect(((await gone.json()) as NextechStatus).configured).toBe(false)
    const refused = await n.call('/sync', { method: 'POST' })
    expect(refused.status).toBe(409)
  })
})
