import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { createApp } from '#server/app.ts'
import { outbox } from '#server/db/schema.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboundQueue } from '#server/messaging/outbound.ts'
import {
  createOutboxSms,
  HIDDEN_CODE,
  outboxCodeHash,
  scheduleOutboxSmsSweep,
  sweepExpiredOutboxSms,
} from '#server/messaging/sms.ts'
import { VERIFICATION_RULES } from '#server/messaging/verification.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

const T0 = new Date('2026-10-01T09:00:00Z')
const TTL = VERIFICATION_RULES.codeTtlMs

/** Waits for what the sweep leaves observable; the deadline is a wide safety net for a busy machine. */
const wide = { timeout: 60_000, interval: 20 }

/**
 * A production server without Twilio records SMS in the `outbox` table, which nobody
 * reads there; it must not keep codes in clear text, nor for longer than they are valid. The
 * development outbox keeps them readable: developers and the browser journeys read them.
 */
describe.each(testBackends())('the SMS outbox on $name', (backend) => {
  const t = useTestApp(backend)
  let clock = T0
  const now = () => clock
  beforeEach(async () => {
    // Each test on its own day, far from the others' rows.
    clock = new Date(T0.getTime() + Math.floor(Math.random() * 10_000) * 24 * 3600_000)
  })

  const phone = () => `+1${nanpTestPhone(`555${String(Math.random()).slice(2, 9)}`)}`
  const rowsTo = (to: string) => t.db.select().from(outbox).where(eq(outbox.to, to))

  it('keeps the code readable in development (and tests)', async () => {
    const to = phone()
    await createOutboxSms(t.db, { now }).send({
      to,
      text: 'Your Glow Rewards confirmation code is 482913. It expires in 10 minutes.',
      code: '482913',
    })
    const [row] = await rowsTo(to)
    expect(row).toMatchObject({
      code: '482913',
      text: 'Your Glow Rewards confirmation code is 482913. It expires in 10 minutes.',
    })
    // The development outbox keeps it past the code's lifetime: nothing sweeps it there.
    clock = new Date(clock.getTime() + TTL + 60_000)
    await createOutboxSms(t.db, { now }).send({ to: phone(), text: 'code 111111', code: '111111' })
    expect(await rowsTo(to)).toHaveLength(1)
  })

  it('keeps only the hash of the code in production, never the code', async () => {
    const to = phone()
    await createOutboxSms(t.db, { now, production: { codeTtlMs: TTL } }).send({
      to,
      text: 'Your Glow Rewards confirmation code is 482913. It expires in 10 minutes.',
      code: '482913',
    })
    const [row] = await rowsTo(to)
    expect(row).toMatchObject({
      text: `Your Glow Rewards confirmation code is ${HIDDEN_CODE}. It expires in 10 minutes.`,
      code: outboxCodeHash('482913'),
    })
    expect(row?.code).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(JSON.stringify(row)).not.toContain('482913')
  })

  it('removes production rows once the code has expired, also rows written in clear text before', async () => {
    const sms = createOutboxSms(t.db, { now, production: { codeTtlMs: TTL } })
    const first = phone()
    await sms.send({ to: first, text: 'code 123456', code: '123456' })
    // A row an earlier version left in clear text, sent as long ago as the code lives.
    const old = phone()
    await t.db.insert(outbox).values({
      channel: 'sms',
      to: old,
      text: 'code 654321',
      code: '654321',
      sent_at: new Date(clock.getTime() - TTL),
    })
    const email = `kept-${Math.random()}@example.com`
    await t.db.insert(outbox).values({
      channel: 'email',
      to: email,
      text: 'An e-mail',
      sent_at: new Date(clock.getTime() - TTL),
    })

    // While the first code is valid, its row stays; the expired one goes with the next send.
    clock = new Date(clock.getTime() + TTL - 1000)
    const second = phone()
    await sms.send({ to: second, text: 'code 222222', code: '222222' })
    expect(await rowsTo(first)).toHaveLength(1)
    expect(await rowsTo(old)).toEqual([])
    // E-mails are not this sweep's business.
    expect(await rowsTo(email)).toHaveLength(1)

    // The sweep alone (no further send) removes the first once its ten minutes are over.
    clock = new Date(clock.getTime() + 1000)
    expect(await sweepExpiredOutboxSms(t.db, clock, TTL)).toBeGreaterThanOrEqual(1)
    expect(await rowsTo(first)).toEqual([])
    expect(await rowsTo(second)).toHaveLength(1)
  })

  it('sweeps on a schedule, so the last code goes too when no SMS follows it', async () => {
    const to = phone()
    await createOutboxSms(t.db, { now, production: { codeTtlMs: TTL } }).send({
      to,
      text: 'code 333333',
      code: '333333',
    })
    const stop = scheduleOutboxSmsSweep({ db: t.db, log: t.log, codeTtlMs: TTL, now, everyMs: 10 })
    try {
      // Still valid: each sweep leaves it.
      await vi.waitFor(async () => expect(await rowsTo(to)).toHaveLength(1), wide)
      clock = new Date(clock.getTime() + TTL)
      await vi.waitFor(async () => expect(await rowsTo(to)).toHaveLength(0), wide)
    } finally {
      await stop()
    }
  })

  it('records a code asked for through the API as its hash only, on a production outbox', async () => {
    const log = t.log
    const mail = createOutboxMail(t.db, { now })
    const sms = createOutboxSms(t.db, { now, production: { codeTtlMs: TTL } })
    const outbound = createOutboundQueue({ db: t.db, mail, sms, log, now })
    const app = createApp({ db: t.db, mail, sms, outbound, config: t.config, now, log })
    const digits = nanpTestPhone(`557${String(Math.random()).slice(2, 9)}`)
    const response = await app.request('/api/auth/get-code', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'hash@example.com', phone: digits, countryCode: '+1' }),
    })
    expect(response.status).toBe(200)
    await outbound.drain()
    const [row] = await rowsTo(`+1${digits}`)
    expect(row?.text).toBe(
      `Your Glow Rewards confirmation code is ${HIDDEN_CODE}. It expires in 10 minutes.`,
    )
    expect(row?.code).toMatch(/^sha256:[0-9a-f]{64}$/)
    // No six digits in a row anywhere in what the outbox kept.
    expect(JSON.stringify(row)).not.toMatch(/(?<![0-9a-f])\d{6}(?![0-9a-f])/)
  })
})
