/**
 * The wallet's sign-in by code, as a patient's phone sees it: the code from the outbox, wrong,
 * expired and reused codes, the lock after 5 wrong codes, the rate limits, the same answers for
 * known and unknown contacts, and a code of one practice opening nothing in another.
 */
import { desc, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import {
  WALLET_MESSAGES,
  WALLET_RESEND_AFTER_SECONDS,
  WalletCodeAnswerSchema,
} from '#domain/wallet.ts'
import { auditEvents, outbox, patientSessions, walletCodes } from '#server/db/schema.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, type TestApp, testBackends } from '#server/testing/test-app.ts'
import { WALLET_LIMITS } from './limits.ts'

const unique = () => Math.random().toString(36).slice(2, 10)

/** A fresh client address each call, so the per-address counters of one test spare the others. */
let addresses = 0
const address = () => {
  addresses += 1
  return `203.0.113.7, 10.${Math.floor(addresses / 250) % 250}.${addresses % 250}.1`
}

type Answer = {
  status: number
  body: Record<string, unknown> & { error?: { message: string; details: Record<string, unknown> } }
}

async function call(
  t: TestApp,
  path: string,
  init: { method?: string; json?: unknown; token?: string; ip?: string } = {},
): Promise<Answer> {
  const { ip, ...rest } = init
  const response = await t.request(`/api${path}`, {
    ...rest,
    ...(ip ? { headers: { 'X-Forwarded-For': ip } } : {}),
  })
  return { status: response.status, body: (await response.json()) as Answer['body'] }
}

/** The newest code sent to `to` (an SMS's code, or an e-mail's subject). */
async function codeSentTo(t: TestApp, to: string): Promise<string | null> {
  await t.deliver()
  const [row] = await t.db
    .select()
    .from(outbox)
    .where(eq(outbox.to, to))
    .orderBy(desc(outbox.id))
    .limit(1)
  if (!row) return null
  return row.code ?? /^(\d{6}) is your/.exec(row.subject ?? '')?.[1] ?? null
}

describe.each(testBackends())('wallet sign-in on $name', (backend) => {
  const t = useTestApp(backend, { trustProxy: true })
  const other = usePracticeFixture(t)

  async function patient(values: { email?: string; phone?: string } = {}) {
    const email = values.email ?? `ana.${unique()}@example.com`
    const row = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Ana',
      last_name: 'Silva',
      email,
      phone: values.phone ?? null,
    })
    return { id: row.id, email }
  }

  const askCode = (practiceId: number, contact: string, ip = address()) =>
    call(t, `/wallet/${practiceId}/code`, { method: 'POST', json: { contact }, ip })
  const openSession = (practiceId: number, contact: string, code: string, ip = address()) =>
    call(t, `/wallet/${practiceId}/session`, { method: 'POST', json: { contact, code }, ip })

  it('signs a patient in with the code from the outbox, by e-mail and by SMS, and the session opens the wallet', async () => {
    const byMail = await patient()
    const asked = await askCode(t.demo.practiceId, `  ${byMail.email.toUpperCase()} `)
    expect(asked).toEqual({
      status: 202,
      body: { sent: true, resend_after_seconds: WALLET_RESEND_AFTER_SECONDS },
    })
    const code = await codeSentTo(t, byMail.email)
    expect(code).toMatch(/^\d{6}$/)
    const opened = await openSession(t.demo.practiceId, byMail.email, code as string)
    expect(opened.status).toBe(200)
    expect(opened.body.token).toMatch(/^gwp_/)
    const me = await call(t, '/wallet/me', { token: opened.body.token as string })
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ patient: { first_name: 'Ana' } })

    // A phone written any common way reaches the patient's E.164 number.
    const phone = `+1408555${String(Math.floor(Math.random() * 9000) + 1000)}`
    await patient({ phone })
    const national = `(408) 555-${phone.slice(-4)}`
    expect((await askCode(t.demo.practiceId, national)).status).toBe(202)
    const sms = await codeSentTo(t, phone)
    expect(sms).toMatch(/^\d{6}$/)
    const bySms = await openSession(t.demo.practiceId, national, sms as string)
    expect(bySms.status).toBe(200)
    // The code is stored hashed, never as sent.
    const stored = await t.db.select().from(walletCodes).where(eq(walletCodes.channel, 'sms'))
    expect(stored.some((row) => row.code_hash.includes(sms as string))).toBe(false)
    // Audited: the sign-in, with the patient and the channel.
    const audit = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'wallet.signed_in'))
    expect(audit.map((row) => row.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ patient_id: byMail.id, channel: 'email' }),
      ]),
    )
  })

  it('refuses a wrong code, an expired code and a reused code, each with its sentence', async () => {
    const p = await patient()
    await askCode(t.demo.practiceId, p.email)
    const code = (await codeSentTo(t, p.email)) as string
    const wrong = code === '000000' ? '111111' : '000000'
    const refused = await openSession(t.demo.practiceId, p.email, wrong)
    expect(refused).toMatchObject({
      status: 401,
      body: { error: { message: WALLET_MESSAGES.codeWrong, details: { reason: 'wrong' } } },
    })
    const opened = await openSession(t.demo.practiceId, p.email, code)
    expect(opened.status).toBe(200)
    // Single use: the same code again is just a wrong code.
    expect(await openSession(t.demo.practiceId, p.email, code)).toMatchObject({
      status: 401,
      body: { error: { message: WALLET_MESSAGES.codeWrong } },
    })

    // Ten minutes later a code has expired: its own sentence.
    await askCode(t.demo.practiceId, p.email)
    const late = (await codeSentTo(t, p.email)) as string
    t.setNow(new Date(Date.now() + 10 * 60 * 1000 + 1000))
    try {
      expect(await openSession(t.demo.practiceId, p.email, late)).toMatchObject({
        status: 410,
        body: { error: { message: WALLET_MESSAGES.codeExpired, details: { reason: 'expired' } } },
      })
    } finally {
      t.setNow(undefined)
    }
    // A new code ends the one before it.
    await askCode(t.demo.practiceId, p.email)
    const first = (await codeSentTo(t, p.email)) as string
    await askCode(t.demo.practiceId, p.email)
    const second = (await codeSentTo(t, p.email)) as string
    if (first !== second) {
      expect((await openSession(t.demo.practiceId, p.email, first)).status).toBe(401)
    }
    expect((await openSession(t.demo.practiceId, p.email, second)).status).toBe(200)
  })

  it('locks sign-in for a contact on the 5th wrong code, even for the right code, and spends its code', async () => {
    const p = await patient()
    await askCode(t.demo.practiceId, p.email)
    const code = (await codeSentTo(t, p.email)) as string
    const wrong = code === '000000' ? '111111' : '000000'
    const statuses: number[] = []
    let last: Answer | undefined
    for (let i = 0; i < WALLET_LIMITS.wrongCodesPerContact.max; i++) {
      // From a new address each time: the lock is the contact's, not the address's.
      last = await openSession(t.demo.practiceId, p.email, wrong)
      statuses.push(last.status)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429])
    expect(last?.body.error?.message).toBe(WALLET_MESSAGES.locked(15))
    expect(last?.body.error?.details).toMatchObject({ reason: 'locked' })
    const right = await openSession(t.demo.practiceId, p.email, code)
    expect(right.status).toBe(429)
    expect(right.body.error?.details).toMatchObject({ reason: 'locked' })
    expect(Number(right.body.error?.details.retry_after_seconds)).toBeGreaterThan(0)
    // 15 minutes later the lock is over, but the code it spent opens nothing: ask a new one.
    t.setNow(new Date(Date.now() + 15 * 60 * 1000 + 1000))
    try {
      expect((await openSession(t.demo.practiceId, p.email, code)).status).toBe(401)
    } finally {
      t.setNow(undefined)
    }
    const locked = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'wallet.locked'))
    expect(locked.length).toBeGreaterThan(0)
  })

  it('answers known and unknown contacts alike: the code call, wrong codes and the lock', async () => {
    const known = await patient()
    const unknown = `nobody.${unique()}@example.com`
    const a = await askCode(t.demo.practiceId, known.email)
    const b = await askCode(t.demo.practiceId, unknown)
    expect(b).toEqual(a)
    expect(WalletCodeAnswerSchema.entries.sent.literal).toBe(true)
    expect(await codeSentTo(t, unknown)).toBeNull()
    const knownAnswers: Answer[] = []
    const unknownAnswers: Answer[] = []
    for (let i = 0; i < WALLET_LIMITS.wrongCodesPerContact.max + 1; i++) {
      knownAnswers.push(await openSession(t.demo.practiceId, known.email, '000000'))
      unknownAnswers.push(await openSession(t.demo.practiceId, unknown, '000000'))
    }
    const shape = (answers: Answer[]) =>
      answers.map((x) => ({
        status: x.status,
        message: x.body.error?.message,
        reason: x.body.error?.details.reason,
      }))
    expect(shape(unknownAnswers)).toEqual(shape(knownAnswers))
    // Nothing is stored for an unknown contact.
    const [none] = await t.db.select().from(walletCodes).where(eq(walletCodes.patient_id, -1))
    expect(none).toBeUndefined()
  })

  it('rate-limits codes per contact and per address, known contact or not', async () => {
    const p = await patient()
    const ip = address()
    const perContact: number[] = []
    for (let i = 0; i < WALLET_LIMITS.codesPerContact.max + 1; i++) {
      perContact.push((await askCode(t.demo.practiceId, p.email)).status)
    }
    expect(perContact).toEqual([202, 202, 202, 202, 202, 429])
    const unknown = `ghost.${unique()}@example.com`
    const perUnknown: number[] = []
    for (let i = 0; i < WALLET_LIMITS.codesPerContact.max + 1; i++) {
      perUnknown.push((await askCode(t.demo.practiceId, unknown)).status)
    }
    expect(perUnknown).toEqual(perContact)
    const refused = await askCode(t.demo.practiceId, p.email)
    expect(refused.body.error).toMatchObject({
      message: WALLET_MESSAGES.tooManyCodes,
      details: { reason: 'rate_limited' },
    })
    // One address asking for many contacts.
    const perAddress: number[] = []
    for (let i = 0; i < WALLET_LIMITS.codesPerIp.max + 1; i++) {
      perAddress.push(
        (await askCode(t.demo.practiceId, `c${i}.${unique()}@example.com`, ip)).status,
      )
    }
    expect(perAddress.filter((s) => s === 202)).toHaveLength(WALLET_LIMITS.codesPerIp.max)
    expect(perAddress.at(-1)).toBe(429)
    // Wrong codes from one address across contacts.
    const guesser = address()
    const guesses: number[] = []
    for (let i = 0; i < WALLET_LIMITS.wrongCodesPerIp.max + 1; i++) {
      guesses.push(
        (await openSession(t.demo.practiceId, `g${i}.${unique()}@example.com`, '123456', guesser))
          .status,
      )
    }
    expect(guesses.slice(0, -1).every((s) => s === 401)).toBe(true)
    expect(guesses.at(-1)).toBe(429)
  })

  it("opens nothing in another practice with a practice's code, and refuses an unknown practice", async () => {
    // One person, a patient of both practices under the same e-mail.
    const p = await patient()
    const there = await insertPatient(t.db, {
      practice_id: other.practiceId,
      first_name: 'Ana',
      last_name: 'Elsewhere',
      email: p.email,
    })
    await askCode(t.demo.practiceId, p.email)
    const code = (await codeSentTo(t, p.email)) as string
    expect((await openSession(other.practiceId, p.email, code)).status).toBe(401)
    const opened = await openSession(t.demo.practiceId, p.email, code)
    expect(opened.status).toBe(200)
    const me = await call(t, '/wallet/me', { token: opened.body.token as string })
    expect(me.body).toMatchObject({ practice: { id: t.demo.practiceId } })
    const sessions = await t.db
      .select()
      .from(patientSessions)
      .where(eq(patientSessions.patient_id, there.id))
    expect(sessions).toEqual([])
    expect((await askCode(2_000_000_000, p.email)).status).toBe(404)
    expect((await call(t, '/wallet/2000000000')).status).toBe(404)
    const practice = await call(t, `/wallet/${t.demo.practiceId}`)
    expect(practice).toMatchObject({ status: 200, body: { practice: { id: t.demo.practiceId } } })
  })

  it('refuses a contact that is neither an e-mail nor a phone, and a code that is not 6 digits', async () => {
    const bad = await askCode(t.demo.practiceId, 'hello')
    expect(bad).toMatchObject({
      status: 400,
      body: { error: { message: `contact: ${WALLET_MESSAGES.contactInvalid}` } },
    })
    const short = await openSession(t.demo.practiceId, 'a@example.com', '12')
    expect(short).toMatchObject({
      status: 400,
      body: { error: { message: `code: ${WALLET_MESSAGES.codeFormat}` } },
    })
  })
})
