import { and, eq, inArray } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { UNDO_WINDOW_MS } from '#domain/visits.ts'
import { ledgerEntries, outbox, patients, practices } from '#server/db/schema.ts'
import { createExpiryJob, nextDailyRun } from '#server/jobs/expiry-job.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { createOutboundQueue, enqueueMessage } from '#server/messaging/outbound.ts'
import { createLedger } from '#server/modules/ledger/service.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { type MailPatient, offerContent, patientMail, unsubscribeLinks } from './service.ts'

const PUBLIC_URL = 'https://glow.example'

const subscribed: MailPatient = {
  first_name: 'Zoë <b>',
  email: 'zoe@example.com',
  email_subscription: true,
  archived_at: null,
  unsubscribe_id: 'abcdefghijklmnopqrstuv',
}

describe('a patient e-mail', () => {
  it('carries both unsubscribe addresses, the one-click header, the practice and an escaped HTML part', () => {
    const message = patientMail(
      PUBLIC_URL,
      { practice_name: 'Glow & Co' },
      subscribed,
      offerContent({ practice_name: 'Glow & Co' }, subscribed, {
        title: 'Spring <script>glow</script>',
        description: 'Half off "peels"',
        link: `${PUBLIC_URL}/offers/tok"en`,
      }),
    )
    if (message?.channel !== 'email') throw new Error('no e-mail')
    expect(message.headers).toEqual({
      'List-Unsubscribe':
        '<https://glow.example/api/unsubscribe/abcdefghijklmnopqrstuv>, <https://glow.example/unsubscribe/abcdefghijklmnopqrstuv>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    expect(message.subject).toBe('Glow & Co: Spring <script>glow</script>')
    expect(message.text).toContain('Hello Zoë <b>,')
    expect(message.text).toContain('Claim offer: https://glow.example/offers/tok"en')
    expect(message.text).toContain(
      'Unsubscribe: https://glow.example/unsubscribe/abcdefghijklmnopqrstuv',
    )
    expect(message.html).toContain('<h1 style="font-size:20px;margin:0 0 24px">Glow &amp; Co</h1>')
    expect(message.html).toContain('Spring &lt;script&gt;glow&lt;/script&gt;')
    expect(message.html).toContain('Hello Zoë &lt;b&gt;,')
    expect(message.html).toContain('href="https://glow.example/offers/tok&quot;en"')
    expect(message.html).not.toContain('<script>')
  })

  it('is refused to a patient without an e-mail, unsubscribed or archived (the one gate)', () => {
    const content = { subject: 'Hi', paragraphs: ['Hi'] }
    const practice = { practice_name: 'Glow' }
    expect(patientMail(PUBLIC_URL, practice, subscribed, content)).not.toBeNull()
    expect(patientMail(PUBLIC_URL, practice, { ...subscribed, email: null }, content)).toBeNull()
    expect(patientMail(PUBLIC_URL, practice, { ...subscribed, email: '' }, content)).toBeNull()
    expect(
      patientMail(PUBLIC_URL, practice, { ...subscribed, email_subscription: false }, content),
    ).toBeNull()
    expect(
      patientMail(PUBLIC_URL, practice, { ...subscribed, archived_at: new Date() }, content),
    ).toBeNull()
  })

  it('keeps a subject on one line', () => {
    const message = patientMail(PUBLIC_URL, { practice_name: 'Glow' }, subscribed, {
      subject: 'Two\r\nBcc: x@evil.example',
      paragraphs: [],
    })
    expect(message?.channel === 'email' && message.subject).toBe('Two Bcc: x@evil.example')
  })

  it('runs the daily job at five past midnight UTC', () => {
    expect(nextDailyRun(new Date('2026-03-01T13:20:00Z')).toISOString()).toBe(
      '2026-03-02T00:05:00.000Z',
    )
  })
})

describe.each(testBackends())('patient e-mail on $name', (backend) => {
  const t = useTestApp(backend)
  const practice = usePracticeFixture(t, { name: 'Lumen Skin' })

  async function addPatient(values: Partial<typeof patients.$inferInsert> = {}) {
    const unsubscribeId = randomToken()
    const [row] = await t.db
      .insert(patients)
      .values({
        practice_id: practice.practiceId,
        first_name: 'Ada',
        last_name: 'Patient',
        email: `ada-${unsubscribeId.slice(0, 8).toLowerCase()}@patients.example`,
        unsubscribe_id: unsubscribeId,
        ...values,
      })
      .returning({ id: patients.id, email: patients.email })
    if (!row) throw new Error('no patient')
    return { id: row.id, email: row.email ?? '', unsubscribeId }
  }

  const mailTo = (email: string) =>
    t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.to, email), eq(outbox.channel, 'email')))

  const subscription = async (id: number) => {
    const [row] = await t.db
      .select({ email_subscription: patients.email_subscription })
      .from(patients)
      .where(eq(patients.id, id))
    return row?.email_subscription
  }

  describe('one-click unsubscribe (RFC 8058)', () => {
    const oneClick = (token: string, init: RequestInit = {}) =>
      t.request(`/api/unsubscribe/${token}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
        ...init,
      })

    it('unsubscribes the patient of the link, as the unsubscribe page does', async () => {
      const patient = await addPatient()
      const response = await oneClick(patient.unsubscribeId)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ email_subscription: false })
      expect(await subscription(patient.id)).toBe(false)
      // Again: the same answer, nothing else changes.
      expect((await oneClick(patient.unsubscribeId)).status).toBe(200)

      const viaPage = await addPatient()
      const page = await t.request(`/api/patients/unsubscribe/${viaPage.unsubscribeId}`, {
        method: 'PUT',
        json: { email_subscription: false },
      })
      expect(page.status).toBe(200)
      expect(await subscription(viaPage.id)).toBe(false)
    })

    it('needs no XSRF header even when the browser has the cookie, and reads no session', async () => {
      const patient = await addPatient()
      const response = await oneClick(patient.unsubscribeId, {
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Cookie: 'XSRF-TOKEN=abc',
        },
      })
      expect(response.status).toBe(200)
      expect(await subscription(patient.id)).toBe(false)
    })

    it('answers an unknown or malformed link the same 200, so it tells nobody which links exist', async () => {
      expect((await oneClick(randomToken())).status).toBe(200)
      expect((await oneClick('short')).status).toBe(200)
    })

    it('refuses a body that is not the one-click form, and changes nothing', async () => {
      const patient = await addPatient()
      for (const init of [
        { body: '' },
        { body: 'List-Unsubscribe=Yes' },
        {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ 'List-Unsubscribe': 'One-Click' }),
        },
      ]) {
        const response = await oneClick(patient.unsubscribeId, init)
        expect(response.status).toBe(400)
        const body = (await response.json()) as { error: { message: string } }
        expect(body.error.message).toBe(
          'The body must be List-Unsubscribe=One-Click (RFC 8058), sent as a form.',
        )
      }
      expect(await subscription(patient.id)).toBe(true)
    })
  })

  describe('the points statement after a visit', () => {
    it('goes to a subscribed patient with the points earned and the new balance, with both parts and the headers', async () => {
      const patient = await addPatient({ first_name: 'Stella' })
      const quiet = await addPatient({ email_subscription: false })
      const visit = (patientId: number) =>
        t.request('/api/visits', {
          method: 'POST',
          token: practice.token,
          json: {
            patient_id: patientId,
            items: [{ procedure_id: practice.procedureId, quantity: 3 }],
            idempotencyKey: randomToken(),
          },
        })
      expect((await visit(patient.id)).status).toBe(201)
      expect((await visit(quiet.id)).status).toBe(201)
      // The statement leaves when the 10 minutes to undo the visit have passed.
      await t.deliver()
      expect(await mailTo(patient.email)).toEqual([])
      t.setNow(new Date(Date.now() + UNDO_WINDOW_MS + 1000))
      await t.deliver()
      t.setNow(undefined)

      const [statement, ...more] = await mailTo(patient.email)
      expect(more).toEqual([])
      expect(statement?.subject).toBe('Your points statement from Lumen Skin')
      expect(statement?.text).toContain('Hello Stella,')
      expect(statement?.text).toContain('You earned 30 points.')
      expect(statement?.text).toContain('Your balance is now 30 points.')
      expect(statement?.html).toContain(
        '<h1 style="font-size:20px;margin:0 0 24px">Lumen Skin</h1>',
      )
      expect(statement?.headers).toEqual({
        'List-Unsubscribe': `<http://localhost:3000/api/unsubscribe/${patient.unsubscribeId}>, <http://localhost:3000/unsubscribe/${patient.unsubscribeId}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      })
      expect(await mailTo(quiet.email)).toEqual([])
    })

    it('is not sent for a visit undone within its 10 minutes, and is sent for one that stands', async () => {
      const patient = await addPatient({ first_name: 'Ulla' })
      const visit = async () => {
        const response = await t.request('/api/visits', {
          method: 'POST',
          token: practice.token,
          json: {
            patient_id: patient.id,
            items: [{ procedure_id: practice.procedureId, quantity: 1 }],
            idempotencyKey: randomToken(),
          },
        })
        expect(response.status).toBe(201)
        return ((await response.json()) as { visit: { id: number } }).visit.id
      }
      const start = Date.now()
      t.setNow(new Date(start))
      const undone = await visit()
      t.setNow(new Date(start + 6_000))
      const undo = await t.request(`/api/visits/${undone}/undo`, {
        method: 'POST',
        token: practice.token,
      })
      expect(undo.status).toBe(201)
      const stands = await visit()
      expect(stands).toBeGreaterThan(undone)
      t.setNow(new Date(start + 6_000 + UNDO_WINDOW_MS + 1000))
      await t.deliver()
      t.setNow(undefined)
      const mails = await mailTo(patient.email)
      // One statement, for the visit that stands: 10 points, balance 10 (not 20, not a second one).
      expect(mails).toHaveLength(1)
      expect(mails[0]?.text).toContain('You earned 10 points.')
      expect(mails[0]?.text).toContain('Your balance is now 10 points.')
    })
  })

  describe('the daily points job, with a fake clock', () => {
    it('reminds 30 and 7 days ahead once each, expires each lot once, and skips patients marketing e-mail may not reach', async () => {
      let clock = new Date('2027-01-01T10:00:00Z')
      const now = () => clock
      const log = memoryLogger()
      const outbound = createOutboundQueue({
        db: t.db,
        mail: { send: async () => {} },
        sms: { send: async () => {} },
        log,
        now,
      })
      const queued: { to: string; subject: string; text: string }[] = []
      const job = createExpiryJob({
        db: t.db,
        outbound: {
          async enqueue(tx, message) {
            if (message.channel === 'email') queued.push(message)
            await enqueueMessage(tx, message, now())
          },
          kick() {},
        },
        publicUrl: PUBLIC_URL,
        now,
        log,
      })
      const [lapsing] = await t.db
        .insert(practices)
        .values({ practice_name: 'Lapse Clinic', expiry_months: 2 })
        .returning({ id: practices.id })
      if (!lapsing) throw new Error('no practice')
      const add = async (values: Partial<typeof patients.$inferInsert>) => {
        const [row] = await t.db
          .insert(patients)
          .values({
            practice_id: lapsing.id,
            first_name: 'Lena',
            last_name: 'Lapse',
            email: `${randomToken(6).toLowerCase()}@lapse.example`,
            unsubscribe_id: randomToken(),
            ...values,
          })
          .returning({ id: patients.id, email: patients.email })
        if (!row) throw new Error('no patient')
        return { id: row.id, email: row.email ?? '' }
      }
      const reader = await add({ first_name: 'Rhea' })
      const unsubscribed = await add({ email_subscription: false })
      const archived = await add({ archived_at: clock })
      const ledger = createLedger({ db: t.db, now })
      for (const patient of [reader, unsubscribed, archived]) {
        await ledger.credit({
          practiceId: lapsing.id,
          patientId: patient.id,
          userId: null,
          kind: 'earn',
          points: 120,
          sourceType: 'visit',
        })
      }
      // The lots lapse on 1 March 2027 at 10:00.
      const mine = () => queued.filter((m) => m.to.endsWith('@lapse.example'))
      const expiries = () =>
        t.db
          .select({ patient_id: ledgerEntries.patient_id, points: ledgerEntries.points })
          .from(ledgerEntries)
          .where(
            and(
              eq(ledgerEntries.kind, 'expire'),
              inArray(ledgerEntries.patient_id, [reader.id, unsubscribed.id, archived.id]),
            ),
          )

      clock = new Date('2027-01-15T00:05:00Z') // 45 days ahead: nothing yet
      await job.run()
      expect(mine()).toEqual([])

      clock = new Date('2027-02-01T00:05:00Z') // 28 days ahead: the 30-day reminder
      await job.run()
      await job.run()
      expect(mine().map((m) => [m.to, m.subject])).toEqual([
        [reader.email, '120 points expire on March 1, 2027'],
      ])
      expect(mine()[0]?.text).toContain(
        '120 points of your Lapse Clinic rewards expire on March 1, 2027.',
      )

      clock = new Date('2027-02-10T00:05:00Z')
      await job.run()
      expect(mine()).toHaveLength(1)

      clock = new Date('2027-02-23T00:05:00Z') // 6 days ahead: the 7-day reminder, once
      await job.run()
      await job.run()
      expect(mine()).toHaveLength(2)
      expect(await expiries()).toEqual([])

      clock = new Date('2027-03-02T00:05:00Z') // lapsed: one expire entry per lot
      const first = await job.run()
      const again = await job.run()
      expect(first.expired).toBeGreaterThanOrEqual(3)
      expect(again).toEqual({ expired: 0, reminders: 0 })
      const posted = await expiries()
      expect(posted).toHaveLength(3)
      expect(posted.every((entry) => entry.points === -120)).toBe(true)
      clock = new Date('2027-03-03T00:05:00Z')
      expect(await job.run()).toEqual({ expired: 0, reminders: 0 })
      expect(await expiries()).toHaveLength(3)
      expect(mine()).toHaveLength(2)
      await outbound.stop()
    })

    it('sends a lot first seen inside 7 days the 7-day reminder only', async () => {
      let clock = new Date('2028-01-01T10:00:00Z')
      const now = () => clock
      const queued: string[] = []
      const job = createExpiryJob({
        db: t.db,
        outbound: {
          async enqueue(tx, message) {
            if (message.channel === 'email') queued.push(message.subject)
            await enqueueMessage(tx, message, now())
          },
          kick() {},
        },
        publicUrl: PUBLIC_URL,
        now,
        log: memoryLogger(),
      })
      const [late] = await t.db
        .insert(practices)
        .values({ practice_name: 'Late Clinic', expiry_months: 1 })
        .returning({ id: practices.id })
      if (!late) throw new Error('no practice')
      const [patient] = await t.db
        .insert(patients)
        .values({
          practice_id: late.id,
          first_name: 'Lou',
          last_name: 'Late',
          email: 'lou@late.example',
          unsubscribe_id: randomToken(),
        })
        .returning({ id: patients.id })
      if (!patient) throw new Error('no patient')
      await createLedger({ db: t.db, now }).credit({
        practiceId: late.id,
        patientId: patient.id,
        userId: null,
        kind: 'earn',
        points: 40,
        sourceType: 'visit',
      })
      clock = new Date('2028-01-28T00:05:00Z') // 4 days before 1 February
      await job.run()
      clock = new Date('2028-01-29T00:05:00Z')
      await job.run()
      expect(queued.filter((s) => s.includes('February 1, 2028'))).toEqual([
        '40 points expire on February 1, 2028',
      ])
    })
  })

  it('builds unsubscribe links on the public URL', () => {
    expect(unsubscribeLinks('https://glow.example/', 'abc')).toEqual({
      page: 'https://glow.example/unsubscribe/abc',
      oneClick: 'https://glow.example/api/unsubscribe/abc',
    })
  })
})
