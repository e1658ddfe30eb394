import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '#server/db/client.ts'
import { outboundMessages } from '#server/db/schema.ts'
import { memoryLogger } from '#server/lib/log.ts'
import type { MailMessage, MailService } from '#server/services/mail.ts'
import type { SmsMessage, SmsService } from '#server/services/sms.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { deferred } from '#tests/support/deferred.ts'
import { backoffMs, createOutboundQueue, LAPSED_CLAIM, OUTBOUND_RULES } from './outbound.ts'

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

  it('sends only what a committed transaction queued, with its headers', async () => {
    const { mails, mail, sms } = recorder()
    const queue = createOutboundQueue({ db: handle.db, mail, sms, log: memoryLogger() })
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
    const row = async () =>
      (await handle.db.select().from(outboundMessages).where(eq(outboundMessages.to, to)))[0]

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
    const answer = deferred<void>()
    const started = deferred<void>()
    const sms: SmsService = {
      send: () => {
        started.resolve()
        return answer.promise
      },
    }
    const queue = createOutboundQueue({ db: handle.db, mail: recorder().mail, sms, log })
    const to = `+1555${String(Date.now()).slice(-7)}`
    await queue.enqueue(handle.db, { channel: 'sms', to, text: 'Code 123456', code: '123456' })
    const row = async () =>
      (await handle.db.select().from(outboundMessages).where(eq(outboundMessages.to, to)))[0]
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
    const answer = deferred<void>()
    const started = deferred<void>()
    const stuckLog = memoryLogger()
    const stuck = createOutboundQueue({
      db: handle.db,
      mail: recorder().mail,
      sms: {
        send: () => {
          started.resolve()
          return answer.promise
        },
      },
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
    const row = async () =>
      (await handle.db.select().from(outboundMessages).where(eq(outboundMessages.to, to)))[0]
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
})
