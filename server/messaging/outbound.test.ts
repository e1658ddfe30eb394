import { and, eq } from 'drizzle-orm'
import { createElement } from 'react'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { DatabaseHandle } from '#server/db/client.ts'
import { outboundMessages } from '#server/db/schema.ts'
import { memoryLogger } from '#server/lib/log.ts'
import type { MailMessage, MailService } from '#server/messaging/mail.ts'
import type { SmsMessage, SmsService } from '#server/messaging/sms.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { deferred } from '#tests/support/deferred.ts'
import {
  backoffMs,
  createOutboundQueue,
  enqueueTemplated,
  LAPSED_CLAIM,
  OUTBOUND_RULES,
  outboundMessageId,
} from './outbound.ts'
import { htmlDocument, mailTemplate, mailTemplates } from './templates.ts'

describe.each(testBackends())('the outbound queue on $name', (backend) => {
  let handle: DatabaseHandle
  beforeAll(async () => {
    handle = await backend.open()
  })
  afterAll(() => handle.close())

  let counter = 0
  const nextAddress = () => `queue-${++counter}-${Date.now()}@example.com`

  function recorder() {
    const mails: MailMessage[] = []
    const texts: SmsMessage[] = []
    const mail: MailService = { send: async (message) => void mails.push(message) }
    const sms: SmsService = { send: async (message) => void texts.push(message) }
    return { mails, texts, mail, sms }
  }

  /**
   * A provider (mail or SMS) whose sends wait until the test settles `answer`; `started` resolves
   * once a send begins, with the e-mail's Message-ID when it has one.
   */
  function heldProvider() {
    const answer = deferred<void>()
    const started = deferred<string | undefined>()
    const send = (message: MailMessage | SmsMessage) => {
      started.resolve('messageId' in message ? message.messageId : undefined)
      return answer.promise
    }
    return { answer, started, send }
  }

  /** The queued row addressed to `to`, or undefined once it left the table. */
  async function rowTo(to: string) {
    return (await handle.db.select().from(outboundMessages).where(eq(outboundMessages.to, to)))[0]
  }

  it('sends only what a committed transaction queued, with its headers', async () => {
    const { mails, mail, sms } = recorder()
    const queue = createOutboundQueue({
      db: handle.db,
      mail,
      sms,
      log: memoryLogger(),
      publicUrl: 'https://rewards.clinic.example',
    })
    const kept = nextAddress()
    const dropped = nextAddress()
    await handle.db.transaction(async (tx) => {
      await queue.enqueue(tx, {
        channel: 'email',
        to: kept,
        subject: 'Hello',
        text: 'Body',
        link: 'http://localhost:3000/x',
        headers: { 'List-Unsubscribe': '<http://localhost:3000/unsubscribe/abc>' },
      })
    })
    await handle.db
      .transaction(async (tx) => {
        await queue.enqueue(tx, { channel: 'email', to: dropped, subject: 'No', text: 'No' })
        throw new Error('the change that caused it failed')
      })
      .catch(() => {})
    await queue.drain()
    expect(mails.filter((m) => m.to === dropped)).toEqual([])
    expect(mails.filter((m) => m.to === kept)).toEqual([
      {
        to: kept,
        subject: 'Hello',
        text: 'Body',
        link: 'http://localhost:3000/x',
        headers: { 'List-Unsubscribe': '<http://localhost:3000/unsubscribe/abc>' },
        messageId: expect.stringMatching(/^<[0-9a-f-]{36}@rewards\.clinic\.example>$/),
      },
    ])
    // Delivered rows leave the table.
    const left = await handle.db
      .select()
      .from(outboundMessages)
      .where(eq(outboundMessages.to, kept))
    expect(left).toEqual([])
  })

  it('retries a failed send with a doubling backoff and gives up after the last attempt', async () => {
    let clock = new Date('2026-09-01T10:00:00Z')
    const log = memoryLogger()
    let failing = true
    const { texts, mail } = recorder()
    const sms: SmsService = {
      send: async (message) => {
        if (failing) throw new Error('provider down')
        texts.push(message)
      },
    }
    const queue = createOutboundQueue({ db: handle.db, mail, sms, log, now: () => clock })
    const to = `+1555${String(Date.now()).slice(-7)}`
    await queue.enqueue(handle.db, { channel: 'sms', to, text: 'Code 123456', code: '123456' })
    const row = () => rowTo(to)

    await queue.drain()
    expect(await row()).toMatchObject({ attempts: 1, last_error: 'provider down', failed_at: null })
    expect((await row())?.next_attempt_at.getTime()).toBe(clock.getTime() + backoffMs(1))
    // Not due yet: nothing is tried.
    await queue.drain()
    expect((await row())?.attempts).toBe(1)
    clock = new Date(clock.getTime() + backoffMs(1))
    await queue.drain()
    expect((await row())?.attempts).toBe(2)
    expect(backoffMs(2)).toBe(2 * backoffMs(1))

    for (let attempt = 3; attempt <= OUTBOUND_RULES.maxAttempts; attempt++) {
      clock = new Date(clock.getTime() + OUTBOUND_RULES.maxBackoffMs)
      await queue.drain()
    }
    const given = await row()
    expect(given?.attempts).toBe(OUTBOUND_RULES.maxAttempts)
    expect(given?.failed_at).not.toBeNull()
    expect(log.lines.some((line) => line.startsWith('error:') && line.includes('given up'))).toBe(
      true,
    )
    // A given-up message is kept for the operator and never tried again.
    failing = false
    clock = new Date(clock.getTime() + OUTBOUND_RULES.maxBackoffMs)
    await queue.drain()
    expect(texts).toEqual([])
  })

  it('sends a row once when two workers drain at the same time', async () => {
    const { mails, mail, sms } = recorder()
    const a = createOutboundQueue({ db: handle.db, mail, sms, log: memoryLogger() })
    const b = createOutboundQueue({ db: handle.db, mail, sms, log: memoryLogger() })
    const to = nextAddress()
    for (let i = 0; i < 25; i++) {
      await a.enqueue(handle.db, { channel: 'email', to, subject: `#${i}`, text: 'x' })
    }
    await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()])
    const subjects = mails.filter((m) => m.to === to).map((m) => m.subject)
    expect(subjects).toHaveLength(25)
    expect(new Set(subjects).size).toBe(25)
  })
  it('writes an attempt together with its error: a send in flight shows neither', async () => {
    const log = memoryLogger()
    const { answer, started, send } = heldProvider()
    const queue = createOutboundQueue({ db: handle.db, mail: recorder().mail, sms: { send }, log })
    const to = `+1555${String(Date.now()).slice(-7)}`
    await queue.enqueue(handle.db, { channel: 'sms', to, text: 'Code 123456', code: '123456' })
    const row = () => rowTo(to)
    const draining = queue.drain()
    await started.promise
    expect(await row()).toMatchObject({ attempts: 0, last_error: null })
    expect((await row())?.claim_token).toBeTruthy()
    answer.reject(new Error('provider down'))
    await draining
    expect(await row()).toMatchObject({
      attempts: 1,
      last_error: 'provider down',
      claim_token: null,
      claimed_at: null,
    })
  })

  it("counts a lapsed claim as a failed attempt, and lets only the claim's holder finish the row", async () => {
    let clock = new Date('2026-09-02T10:00:00Z')
    const { answer, started, send } = heldProvider()
    const stuckLog = memoryLogger()
    const stuck = createOutboundQueue({
      db: handle.db,
      mail: recorder().mail,
      sms: { send },
      log: stuckLog,
      now: () => clock,
    })
    const { texts, mail, sms } = recorder()
    const other = createOutboundQueue({
      db: handle.db,
      mail,
      sms,
      log: memoryLogger(),
      now: () => clock,
    })
    const to = `+1555${String(Date.now() + 1).slice(-7)}`
    await stuck.enqueue(handle.db, { channel: 'sms', to, text: 'Code 654321', code: '654321' })
    const row = () => rowTo(to)
    const draining = stuck.drain()
    await started.promise
    // Within the lease nobody else takes it.
    await other.drain()
    expect(texts).toEqual([])
    // The lease runs out while the first worker still waits on its provider: the next claim counts
    // that attempt as failed and sends the message.
    clock = new Date(clock.getTime() + OUTBOUND_RULES.leaseMs + 1)
    const claimedAgain = deferred<void>()
    const watcher = createOutboundQueue({
      db: handle.db,
      mail,
      sms: {
        send: async (message) => {
          expect(await row()).toMatchObject({ attempts: 1, last_error: LAPSED_CLAIM })
          claimedAgain.resolve()
          await sms.send(message)
        },
      },
      log: memoryLogger(),
      now: () => clock,
    })
    await watcher.drain()
    await claimedAgain.promise
    expect(texts.map((text) => text.to)).toEqual([to])
    expect(await row()).toBeUndefined()
    // The first worker's failure, late, writes nothing over what the second one did.
    answer.reject(new Error('provider timed out'))
    await draining
    expect(await row()).toBeUndefined()
  })

  it('keeps a stable Message-ID per queued message, the same on every attempt', async () => {
    let clock = new Date('2026-09-03T10:00:00Z')
    const ids: (string | undefined)[] = []
    let failing = true
    const queue = createOutboundQueue({
      db: handle.db,
      mail: {
        send: async (message) => {
          ids.push(message.messageId)
          if (failing) throw new Error('451 try again later')
        },
      },
      sms: recorder().sms,
      log: memoryLogger(),
      now: () => clock,
      publicUrl: 'https://glow.example:8443/portal',
    })
    const to = nextAddress()
    await queue.enqueue(handle.db, { channel: 'email', to, subject: 'Hi', text: 'x' })
    const [row] = await handle.db
      .select({ key: outboundMessages.message_key })
      .from(outboundMessages)
      .where(eq(outboundMessages.to, to))
    const key = row?.key ?? ''
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

    await queue.drain()
    failing = false
    clock = new Date(clock.getTime() + backoffMs(1))
    await queue.drain()
    expect(ids).toEqual([`<${key}@glow.example>`, `<${key}@glow.example>`])
    expect(outboundMessageId(key, 'http://[::1]:3000')).toBe(`<${key}@::1>`)
  })

  it('renews the lease while a slow send runs: two workers deliver every message exactly once', async () => {
    const timings = { leaseMs: 1_500, renewMs: 100, sendCeilingMs: 60_000 }
    const to = nextAddress()
    const delivered: string[] = []
    const slowStarted = deferred<void>()
    const slowRelease = deferred<void>()
    // The first message waits on its provider far longer than one lease; the others are quick.
    const sender = (patient = true): MailService => ({
      send: async (message) => {
        if (message.subject === '#0' && patient) {
          slowStarted.resolve()
          await slowRelease.promise
        }
        delivered.push(message.subject)
      },
    })
    const a = createOutboundQueue({
      db: handle.db,
      mail: sender(),
      sms: recorder().sms,
      log: memoryLogger(),
      timings,
    })
    const b = createOutboundQueue({
      db: handle.db,
      mail: sender(),
      sms: recorder().sms,
      log: memoryLogger(),
      timings,
    })
    // A third worker that looks for due rows while the slow send runs (and would send #0 again
    // at once if it could claim it).
    const watcher = createOutboundQueue({
      db: handle.db,
      mail: sender(false),
      sms: recorder().sms,
      log: memoryLogger(),
      timings,
    })
    for (let i = 0; i < 12; i++) {
      await a.enqueue(handle.db, { channel: 'email', to, subject: `#${i}`, text: 'x' })
    }
    const slow = async () =>
      (
        await handle.db
          .select()
          .from(outboundMessages)
          .where(and(eq(outboundMessages.to, to), eq(outboundMessages.subject, '#0')))
      )[0]
    const draining = Promise.all([a.drain(), b.drain()])
    await slowStarted.promise
    const claimed = await slow()
    const claimedAt = claimed?.claimed_at?.getTime() ?? 0
    // The slow send outlasts two leases while another worker keeps looking for due rows: the
    // holder's renewals keep its row out of reach.
    await vi.waitFor(
      async () => {
        await watcher.drain()
        const row = await slow()
        expect(row?.claim_token).toBe(claimed?.claim_token)
        expect(row?.next_attempt_at.getTime()).toBeGreaterThan(claimedAt + 2 * timings.leaseMs)
      },
      { timeout: 30_000, interval: 50 },
    )
    expect(delivered.filter((subject) => subject === '#0')).toEqual([])
    slowRelease.resolve()
    await draining
    await Promise.all([a.drain(), b.drain(), watcher.drain()])
    expect(delivered.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `#${i}`).sort())
    expect(await slow()).toBeUndefined()
  })

  it('never lets a worker whose claim was taken over delete or rewrite the row', async () => {
    let clock = new Date('2026-09-04T10:00:00Z')
    // Renewals far apart: the first worker stalls (a paused process) and its lease runs out.
    const timings = { leaseMs: 30_000, renewMs: 3_600_000, sendCeilingMs: 7_200_000 }
    const firstProvider = heldProvider()
    const secondProvider = heldProvider()
    const firstLog = memoryLogger()
    const first = createOutboundQueue({
      db: handle.db,
      mail: { send: firstProvider.send },
      sms: recorder().sms,
      log: firstLog,
      now: () => clock,
      timings,
    })
    const second = createOutboundQueue({
      db: handle.db,
      mail: { send: secondProvider.send },
      sms: recorder().sms,
      log: memoryLogger(),
      now: () => clock,
      timings,
    })
    const to = nextAddress()
    await first.enqueue(handle.db, { channel: 'email', to, subject: 'Takeover', text: 'x' })
    const row = () => rowTo(to)

    const firstDraining = first.drain()
    const firstId = await firstProvider.started.promise
    const firstToken = (await row())?.claim_token
    clock = new Date(clock.getTime() + timings.leaseMs + 1)
    const secondDraining = second.drain()
    const secondId = await secondProvider.started.promise
    const taken = await row()
    expect(taken?.claim_token).toBeTruthy()
    expect(taken?.claim_token).not.toBe(firstToken)
    // The same message both times: a receiver can tell the second copy is the first one again.
    expect(secondId).toBe(firstId)

    // The first worker's provider answers at last: its delete finds the row held by the second.
    firstProvider.answer.resolve()
    await firstDraining
    expect(await row()).toMatchObject({ claim_token: taken?.claim_token, attempts: 1 })
    expect(firstLog.lines.some((line) => line.includes('was sent after its claim ran out'))).toBe(
      true,
    )
    secondProvider.answer.resolve()
    await secondDraining
    expect(await row()).toBeUndefined()
  })

  it('stops renewing a claim that another worker took, and leaves that row alone', async () => {
    const log = memoryLogger()
    const { answer, started, send } = heldProvider()
    const queue = createOutboundQueue({
      db: handle.db,
      mail: { send },
      sms: recorder().sms,
      log,
      timings: { leaseMs: 60_000, renewMs: 20, sendCeilingMs: 60_000 },
    })
    const to = nextAddress()
    await queue.enqueue(handle.db, { channel: 'email', to, subject: 'Renewed', text: 'x' })
    const row = () => rowTo(to)
    const draining = queue.drain()
    await started.promise
    // Another worker's claim, as a takeover after a lapsed lease writes it.
    const theirs = {
      claim_token: 'another-workers-claim',
      next_attempt_at: new Date(Date.now() + 3_600_000),
    }
    await handle.db.update(outboundMessages).set(theirs).where(eq(outboundMessages.to, to))
    await vi.waitFor(
      () =>
        expect(log.lines.some((line) => line.includes('lost its claim during the send'))).toBe(
          true,
        ),
      { timeout: 30_000, interval: 20 },
    )
    // No renewal moves the other worker's lease, and the late delivery deletes nothing.
    expect(await row()).toMatchObject(theirs)
    answer.resolve()
    await draining
    expect(await row()).toMatchObject(theirs)
    expect(log.lines.filter((line) => line.includes('lost its claim'))).toHaveLength(1)
  })

  it('claims only the message it sends: the rest stay free for another worker at once', async () => {
    const to = nextAddress()
    const { answer, started, send } = heldProvider()
    const stuck = createOutboundQueue({
      db: handle.db,
      mail: { send },
      sms: recorder().sms,
      log: memoryLogger(),
    })
    const { mails, mail, sms } = recorder()
    const other = createOutboundQueue({ db: handle.db, mail, sms, log: memoryLogger() })
    for (let i = 0; i < 5; i++) {
      await stuck.enqueue(handle.db, { channel: 'email', to, subject: `#${i}`, text: 'x' })
    }
    const rows = () =>
      handle.db
        .select()
        .from(outboundMessages)
        .where(eq(outboundMessages.to, to))
        .orderBy(outboundMessages.id)
    const stuckDraining = stuck.drain()
    await started.promise
    const claimed = (await rows()).filter((row) => row.claim_token !== null)
    expect(claimed.map((row) => row.subject)).toEqual(['#0'])
    // A worker stopping (or dying) here holds one message; the other sends the rest now, not
    // after a lease.
    await other.drain()
    expect(mails.filter((m) => m.to === to).map((m) => m.subject)).toEqual(['#1', '#2', '#3', '#4'])
    const stopping = stuck.stop()
    answer.resolve()
    await Promise.all([stopping, stuckDraining])
    expect(await rows()).toEqual([])
  })

  describe('an e-mail queued as a template', () => {
    /** A template that counts its renders: a greeting with the name in both parts. */
    function greeting() {
      let renders = 0
      const template = mailTemplate<{ name: string; link: string }>(
        'test-greeting',
        ({ name, link }) => {
          renders++
          return {
            subject: `Hello ${name}`,
            text: `Hello ${name},\nyour link: ${link}`,
            html: htmlDocument(
              createElement(
                'p',
                null,
                `Hello ${name}, `,
                createElement('a', { href: link }, 'open'),
              ),
            ),
            link,
            headers: { 'X-Greeting': name },
          }
        },
      )
      return { template, renders: () => renders }
    }

    it('is rendered once, when its first attempt sends it, and every attempt delivers what was rendered', async () => {
      let clock = new Date()
      const { template, renders } = greeting()
      let failing = true
      const { mails } = recorder()
      const mail: MailService = {
        send: async (message) => {
          if (failing) throw new Error('provider down')
          mails.push(message)
        },
      }
      const queue = createOutboundQueue({
        db: handle.db,
        mail,
        sms: recorder().sms,
        log: memoryLogger(),
        now: () => clock,
        templates: mailTemplates(template),
      })
      const to = nextAddress()
      const name = '<b>Ann & "Jo"</b>'
      const link = 'https://glow.example/offers/a?b=1&c=2'
      await enqueueTemplated(handle.db, template, to, { name, link }, clock)
      const row = () => rowTo(to)
      expect(await row()).toMatchObject({
        template: 'test-greeting',
        data: { name, link },
        subject: null,
        text: null,
        html: null,
      })

      await queue.drain()
      expect(renders()).toBe(1)
      const rendered = await row()
      expect(rendered).toMatchObject({
        attempts: 1,
        last_error: 'provider down',
        subject: 'Hello <b>Ann & "Jo"</b>',
        text: 'Hello <b>Ann & "Jo"</b>,\nyour link: https://glow.example/offers/a?b=1&c=2',
        link,
        headers: { 'X-Greeting': name },
      })
      expect(rendered?.html).toBe(
        '<!doctype html>\n<p>Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;, <a href="https://glow.example/offers/a?b=1&amp;c=2">open</a></p>\n',
      )

      failing = false
      clock = new Date(clock.getTime() + backoffMs(1))
      await queue.drain()
      expect(renders()).toBe(1)
      expect(mails).toEqual([
        {
          to,
          subject: rendered?.subject,
          text: rendered?.text,
          html: rendered?.html,
          link,
          headers: { 'X-Greeting': name },
          messageId: expect.stringMatching(/^<[0-9a-f-]{36}@localhost>$/),
        },
      ])
      expect(await row()).toBeUndefined()
    })

    it('counts a row whose template the worker does not know as a failed attempt, and sends it once it does', async () => {
      let clock = new Date()
      const { template } = greeting()
      const log = memoryLogger()
      const { mails, mail, sms } = recorder()
      const unaware = createOutboundQueue({ db: handle.db, mail, sms, log, now: () => clock })
      const to = nextAddress()
      await enqueueTemplated(
        handle.db,
        template,
        to,
        { name: 'Ann', link: 'https://x.example' },
        clock,
      )
      await unaware.drain()
      expect(await rowTo(to)).toMatchObject({
        attempts: 1,
        last_error: 'No e-mail template is named "test-greeting"',
        text: null,
      })
      expect(log.lines.join('\n')).toContain('E-mail "test-greeting" to ')

      clock = new Date(clock.getTime() + backoffMs(1))
      const aware = createOutboundQueue({
        db: handle.db,
        mail,
        sms,
        log,
        now: () => clock,
        templates: mailTemplates(template),
      })
      await aware.drain()
      expect(mails.filter((m) => m.to === to).map((m) => m.subject)).toEqual(['Hello Ann'])
    })
  })
})
