import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { DatabaseHandle } from '#server/db/client.ts'
import { outboundMessages, verificationCodes } from '#server/db/schema.ts'
import { memoryLogger } from '#server/lib/log.ts'
import type { MailService } from '#server/messaging/mail.ts'
import { createOutboundQueue, type OutboundQueue } from '#server/messaging/outbound.ts'
import type { SmsMessage } from '#server/messaging/sms.ts'
import { testBackends } from '#server/testing/test-app.ts'
import {
  consumeVerification,
  hashCode,
  issueCode,
  isVerified,
  newCode,
  phoneDigits,
  VERIFICATION_MESSAGES,
  VerificationError,
  verifyCode,
} from './verification.ts'

const T0 = new Date('2026-05-01T10:00:00Z')
const plus = (ms: number) => new Date(T0.getTime() + ms)

async function rejection(promise: Promise<unknown>): Promise<VerificationError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  if (error instanceof VerificationError) return error
  throw new Error(`expected a VerificationError, got ${String(error)}`)
}

describe.each(testBackends())('phone verification service on $name', (backend) => {
  let handle: DatabaseHandle
  const sent: SmsMessage[] = []
  const sms = { send: async (message: SmsMessage) => void sent.push(message) }
  const noMail: MailService = { send: async () => Promise.reject(new Error('no e-mail here')) }
  let outbound: OutboundQueue
  let phoneCounter = 0
  // Each test uses its own phone so the per-phone limits never leak between tests.
  const nextPhone = () => `555${String(1000000 + ++phoneCounter).slice(1)}`

  beforeAll(async () => {
    handle = await backend.open()
    outbound = createOutboundQueue({ db: handle.db, mail: noMail, sms, log: memoryLogger() })
  })
  // A test's codes are sent within it: no pass of the shared queue runs on into the next test
  // (where it could take that test's messages).
  afterEach(() => outbound.drain())
  afterAll(() => handle.close())

  it('makes 6-digit codes and compares phones by digits', () => {
    for (let i = 0; i < 50; i++) expect(newCode()).toMatch(/^\d{6}$/)
    expect(phoneDigits('+1 (555) 010-0101')).toBe('15550100101')
  })

  it('stores only the hash, sends the code by SMS, and verifies it once', async () => {
    const phone = nextPhone()
    const { authyId } = await issueCode(
      { db: handle.db, outbound, now: () => T0, generateCode: () => '012345' },
      { email: 'Jane@Example.com', phone, countryCode: '+1' },
    )
    expect(authyId.length).toBeGreaterThanOrEqual(22)
    await outbound.drain()
    expect(sent.at(-1)).toMatchObject({ to: `+1${phone}`, code: '012345' })
    expect(sent.at(-1)?.text).toContain('012345')
    const [row] = await handle.db
      .select()
      .from(verificationCodes)
      .where(eq(verificationCodes.id, authyId))
    expect(row?.code_hash).toBe(hashCode(authyId, '012345'))
    expect(JSON.stringify(row)).not.toContain('012345')
    expect(row?.email).toBe('jane@example.com')

    await verifyCode({ db: handle.db, now: () => plus(1000) }, { authyId, phone, code: '012345' })
    expect(await isVerified(handle.db, { authyId, phone }, plus(2000))).toBe(true)
    await consumeVerification(handle.db, { authyId, phone }, plus(3000))
    const again = await rejection(consumeVerification(handle.db, { authyId, phone }, plus(4000)))
    expect(again).toMatchObject({ status: 400, message: VERIFICATION_MESSAGES.notVerified })
  })

  it('refuses a second code within 30 s, and a sixth code within the hour', async () => {
    const phone = nextPhone()
    const deps = (at: Date) => ({ db: handle.db, outbound, now: () => at })
    const input = { email: 'a@b.co', phone, countryCode: '+1' }
    await issueCode(deps(T0), input)
    const soon = await rejection(issueCode(deps(plus(10_000)), input))
    expect(soon).toMatchObject({ status: 429, retryAfterSeconds: 20 })
    expect(soon.message).toBe(VERIFICATION_MESSAGES.resendTooSoon(20))
    for (let i = 1; i < 5; i++) await issueCode(deps(plus(i * 31_000)), input)
    const sixth = await rejection(issueCode(deps(plus(5 * 31_000)), input))
    expect(sixth).toMatchObject({ status: 429, message: VERIFICATION_MESSAGES.tooManyCodes })
    await issueCode(deps(plus(61 * 60_000)), input)
  })

  it('lets only the newest code of a phone work', async () => {
    const phone = nextPhone()
    const first = await issueCode(
      { db: handle.db, outbound, now: () => T0, generateCode: () => '111111' },
      { email: 'a@b.co', phone, countryCode: '+1' },
    )
    await issueCode(
      { db: handle.db, outbound, now: () => plus(31_000), generateCode: () => '222222' },
      { email: 'a@b.co', phone, countryCode: '+1' },
    )
    const old = await rejection(
      verifyCode(
        { db: handle.db, now: () => plus(32_000) },
        { authyId: first.authyId, phone, code: '111111' },
      ),
    )
    expect(old.message).toBe(VERIFICATION_MESSAGES.expired)
  })

  it('answers wrong, expired and unknown codes, and kills a code after 5 attempts', async () => {
    const phone = nextPhone()
    const { authyId } = await issueCode(
      { db: handle.db, outbound, now: () => T0, generateCode: () => '654321' },
      { email: 'a@b.co', phone, countryCode: '+1' },
    )
    const check = (code: string, at = plus(1000), id = authyId, p = phone) =>
      rejection(verifyCode({ db: handle.db, now: () => at }, { authyId: id, phone: p, code }))

    expect(await check('000000', plus(11 * 60_000))).toMatchObject({
      status: 400,
      message: VERIFICATION_MESSAGES.expired,
    })
    expect(await check('654321', plus(1000), 'nope')).toMatchObject({
      status: 400,
      message: VERIFICATION_MESSAGES.unknown,
    })
    expect(await check('654321', plus(1000), authyId, '5550000000')).toMatchObject({ status: 400 })
    for (let i = 0; i < 5; i++) {
      expect(await check('000000')).toMatchObject({
        status: 400,
        message: VERIFICATION_MESSAGES.incorrect,
      })
    }
    expect(await check('654321')).toMatchObject({
      status: 429,
      message: VERIFICATION_MESSAGES.tooManyAttempts,
    })
    expect(await isVerified(handle.db, { authyId, phone }, plus(2000))).toBe(false)
  })

  it('counts parallel guesses against the same 5 attempts', async () => {
    const phone = nextPhone()
    const { authyId } = await issueCode(
      { db: handle.db, outbound, now: () => T0, generateCode: () => '999999' },
      { email: 'a@b.co', phone, countryCode: '+1' },
    )
    const guesses = Array.from({ length: 12 }, (_, i) =>
      rejection(
        verifyCode(
          { db: handle.db, now: () => plus(1000) },
          { authyId, phone, code: String(100000 + i) },
        ),
      ),
    )
    const results = await Promise.all(guesses)
    expect(results.filter((e) => e.status === 400)).toHaveLength(5)
    expect(results.filter((e) => e.status === 429)).toHaveLength(7)
  })

  it('refuses to consume an unverified or stale verification', async () => {
    const phone = nextPhone()
    const { authyId } = await issueCode(
      { db: handle.db, outbound, now: () => T0, generateCode: () => '123123' },
      { email: 'a@b.co', phone, countryCode: '+1' },
    )
    expect(
      await rejection(consumeVerification(handle.db, { authyId, phone }, plus(1000))),
    ).toMatchObject({ status: 400 })
    await verifyCode({ db: handle.db, now: () => plus(1000) }, { authyId, phone, code: '123123' })
    // A double click on Verify is harmless.
    await verifyCode({ db: handle.db, now: () => plus(2000) }, { authyId, phone, code: '123123' })
    expect(
      await rejection(consumeVerification(handle.db, { authyId, phone }, plus(25 * 60 * 60_000))),
    ).toMatchObject({
      status: 400,
    })
  })

  it('queues the SMS with the code: a provider failure keeps both and the SMS is retried', async () => {
    const phone = nextPhone()
    const failing = { send: async () => Promise.reject(new Error('provider down')) }
    const log = memoryLogger()
    const flaky = createOutboundQueue({ db: handle.db, mail: noMail, sms: failing, log })
    await issueCode(
      { db: handle.db, outbound: flaky, now: () => T0 },
      { email: 'a@b.co', phone, countryCode: '+1' },
    )
    await flaky.drain()
    const codes = await handle.db
      .select()
      .from(verificationCodes)
      .where(eq(verificationCodes.phone, phone))
    expect(codes).toHaveLength(1)
    // The kick of issueCode may still hold the message when drain() finds nothing more to
    // claim: wait for its attempt, which is written with its error in one update.
    const queuedRow = async () =>
      (
        await handle.db
          .select()
          .from(outboundMessages)
          .where(eq(outboundMessages.to, `+1${phone}`))
      )[0]
    await vi.waitFor(async () => expect((await queuedRow())?.attempts).toBe(1))
    const queued = await queuedRow()
    expect(queued).toMatchObject({ channel: 'sms', attempts: 1, last_error: 'provider down' })
    expect(queued?.failed_at).toBeNull()
    expect(log.lines.join('\n')).toContain('retried later')
    // The retry waits its backoff: a pass now sends nothing more.
    await outbound.drain()
    expect(sent.some((m) => m.to === `+1${phone}`)).toBe(false)
  })
})
