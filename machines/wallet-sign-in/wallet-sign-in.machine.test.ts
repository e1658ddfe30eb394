import { describe, expect, it } from 'vitest'
import { createActor, SimulatedClock, waitFor } from 'xstate'
import {
  parseContact,
  WALLET_MESSAGES,
  type WalletCodeAnswer,
  type WalletSessionAnswer,
} from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import {
  codeProblem,
  contactProblem,
  type OpenWalletSessionInput,
  type SendWalletCodeInput,
  walletSignInMachine,
} from '#machines/wallet-sign-in/wallet-sign-in.machine.ts'
import { WalletSignInError } from '#machines/wallet-sign-in/wallet-sign-in-error.ts'
import { controlled } from '#tests/support/deferred.ts'

const session: WalletSessionAnswer = { token: 'tok', expires_at: '2026-06-15T10:00:00.000Z' }
const sent: WalletCodeAnswer = { sent: true, resend_after_seconds: 30 }

/** A sign-in on a simulated clock, its calls answered by the test. */
function start() {
  const sendWalletCode = controlled<WalletCodeAnswer, SendWalletCodeInput>()
  const openWalletSession = controlled<WalletSessionAnswer, OpenWalletSessionInput>()
  const clock = new SimulatedClock()
  const actor = createActor(
    walletSignInMachine.provide({
      actors: { sendWalletCode: sendWalletCode.logic, openWalletSession: openWalletSession.logic },
    }),
    { input: { practiceId: 7 }, clock },
  ).start()
  return { actor, clock, sendWalletCode, openWalletSession }
}

/** Types `contact`, sends it and lets the server answer that the code went out. */
async function toCodeSent(h: ReturnType<typeof start>, contact = ' Jane@Example.com ') {
  h.actor.send({ type: 'contact.change', value: contact })
  h.actor.send({ type: 'contact.submit' })
  h.sendWalletCode.latest().answer.resolve(sent)
  await waitFor(h.actor, (s) => s.matches({ codeSent: 'entering' }))
}

/** Types `code` and submits it; the session call is then waiting. */
function submitCode(h: ReturnType<typeof start>, code = '123 456') {
  h.actor.send({ type: 'code.change', value: code })
  h.actor.send({ type: 'code.submit' })
  expect(h.actor.getSnapshot().matches({ codeSent: 'verifying' })).toBe(true)
}

describe('wallet sign-in: the contact', () => {
  it('accepts an e-mail or a phone, in any common writing', () => {
    expect(contactProblem('jane@example.com')).toBeNull()
    expect(contactProblem('(415) 555-0142')).toBeNull()
    expect(contactProblem('+1 415 555 0142')).toBeNull()
    expect(contactProblem('')).toBe(WALLET_MESSAGES.contactRequired)
    expect(contactProblem('   ')).toBe(WALLET_MESSAGES.contactRequired)
    expect(contactProblem('jane@')).toBe(WALLET_MESSAGES.contactInvalid)
    expect(contactProblem('12')).toBe(WALLET_MESSAGES.contactInvalid)
    expect(contactProblem('415 555 01x2')).toBe(WALLET_MESSAGES.contactInvalid)
    expect(contactProblem('jane @example.com')).toBe(WALLET_MESSAGES.contactInvalid)
  })

  it('agrees with the server on what it accepts (domain/wallet.ts parseContact)', () => {
    for (const text of [
      'jane@example.com',
      ' Jane@Example.com ',
      '(415) 555-0142',
      '+1 415 555 0142',
    ]) {
      expect(parseContact(text), text).not.toBeNull()
      expect(contactProblem(text), text).toBeNull()
    }
    for (const text of ['', 'jane@', '12', 'jane', '555-01']) {
      expect(parseContact(text), text).toBeNull()
      expect(contactProblem(text), text).not.toBeNull()
    }
  })

  it('says what is wrong with the contact and sends nothing; typing again clears it', () => {
    const h = start()
    h.actor.send({ type: 'contact.submit' })
    expect(h.actor.getSnapshot().context.contactError).toBe(WALLET_MESSAGES.contactRequired)
    h.actor.send({ type: 'contact.change', value: 'jane@' })
    expect(h.actor.getSnapshot().context.contactError).toBeNull()
    h.actor.send({ type: 'contact.submit' })
    expect(h.actor.getSnapshot().value).toBe('enteringContact')
    expect(h.actor.getSnapshot().context.contactError).toBe(WALLET_MESSAGES.contactInvalid)
    expect(h.sendWalletCode.calls).toHaveLength(0)
  })

  it('sends the contact trimmed to the practice, and says where the code went', async () => {
    const h = start()
    await toCodeSent(h)
    expect(h.sendWalletCode.calls[0]?.input).toEqual({
      practiceId: 7,
      contact: 'Jane@Example.com',
    })
    expect(h.actor.getSnapshot().context.sentTo).toBe('Jane@Example.com')
  })

  it('keeps the contact through a failed send; Try again sends it again', async () => {
    const h = start()
    h.actor.send({ type: 'contact.change', value: '415 555 0142' })
    h.actor.send({ type: 'contact.submit' })
    h.sendWalletCode.latest().answer.reject(new WalletSignInError('failed', 'No connection.'))
    await waitFor(h.actor, (s) => s.matches('sendFailed'))
    expect(h.actor.getSnapshot().context).toMatchObject({
      contact: '415 555 0142',
      error: 'No connection.',
    })
    h.actor.send({ type: 'retry' })
    expect(h.actor.getSnapshot().value).toBe('sendingCode')
    expect(h.actor.getSnapshot().context.error).toBeNull()
    expect(h.sendWalletCode.calls[1]?.input.contact).toBe('415 555 0142')
  })

  it('a failure without words reads as our own failure', async () => {
    const h = start()
    h.actor.send({ type: 'contact.change', value: 'jane@example.com' })
    h.actor.send({ type: 'contact.submit' })
    h.sendWalletCode.latest().answer.reject(new Error(''))
    await waitFor(h.actor, (s) => s.matches('sendFailed'))
    expect(h.actor.getSnapshot().context.error).toBe(WALLET_SIGN_IN_TEXT.failed)
  })
})

describe('wallet sign-in: the code', () => {
  it('needs 6 digits before asking the server (spaces dropped)', async () => {
    const h = start()
    await toCodeSent(h)
    expect(codeProblem('123 456')).toBeNull()
    expect(codeProblem('12345a')).toBe(WALLET_MESSAGES.codeFormat)
    h.actor.send({ type: 'code.change', value: '1234' })
    h.actor.send({ type: 'code.submit' })
    expect(h.actor.getSnapshot().matches({ codeSent: 'entering' })).toBe(true)
    expect(h.actor.getSnapshot().context.codeError).toBe(WALLET_MESSAGES.codeFormat)
    expect(h.openWalletSession.calls).toHaveLength(0)
    submitCode(h)
    expect(h.openWalletSession.latest().input).toEqual({
      practiceId: 7,
      contact: 'Jane@Example.com',
      code: '123456',
    })
  })

  it('signs in with the right code: final, with the session as output', async () => {
    const h = start()
    await toCodeSent(h)
    submitCode(h)
    h.openWalletSession.latest().answer.resolve(session)
    await waitFor(h.actor, (s) => s.status === 'done')
    expect(h.actor.getSnapshot().value).toBe('signedIn')
    expect(h.actor.getSnapshot().output).toEqual(session)
  })

  it('a wrong code keeps the code as typed; changing it or trying again goes on', async () => {
    const h = start()
    await toCodeSent(h)
    submitCode(h, '111111')
    h.openWalletSession
      .latest()
      .answer.reject(new WalletSignInError('wrong', WALLET_SIGN_IN_TEXT.codeWrong))
    await waitFor(h.actor, (s) => s.matches({ codeSent: 'wrongCode' }))
    expect(h.actor.getSnapshot().context).toMatchObject({
      code: '111111',
      error: 'That code is not right. Check it and try again.',
    })
    h.actor.send({ type: 'code.submit' })
    expect(h.actor.getSnapshot().matches({ codeSent: 'verifying' })).toBe(true)
    expect(h.actor.getSnapshot().context.error).toBeNull()
    h.openWalletSession.latest().answer.reject(new WalletSignInError('wrong', 'x'))
    await waitFor(h.actor, (s) => s.matches({ codeSent: 'wrongCode' }))
    h.actor.send({ type: 'code.change', value: '111112' })
    expect(h.actor.getSnapshot().matches({ codeSent: 'entering' })).toBe(true)
    expect(h.actor.getSnapshot().context.error).toBeNull()
  })

  it('an expired code offers a new one, to the same contact', async () => {
    const h = start()
    await toCodeSent(h)
    submitCode(h)
    h.openWalletSession
      .latest()
      .answer.reject(new WalletSignInError('expired', WALLET_SIGN_IN_TEXT.codeExpired))
    await waitFor(h.actor, (s) => s.matches('expiredCode'))
    expect(h.actor.getSnapshot().context.error).toBe(
      'This code has expired. We can send you a new one.',
    )
    h.actor.send({ type: 'code.resend' })
    expect(h.actor.getSnapshot().value).toBe('sendingCode')
    expect(h.sendWalletCode.latest().input.contact).toBe('Jane@Example.com')
    h.sendWalletCode.latest().answer.resolve(sent)
    await waitFor(h.actor, (s) => s.matches({ codeSent: 'entering' }))
    // A new code: the old one is gone from the field.
    expect(h.actor.getSnapshot().context.code).toBe('')
    expect(h.actor.getSnapshot().context.sendCount).toBe(2)
  })

  it('a lock says until when, lasts as long as the server said, then returns to the contact', async () => {
    const h = start()
    await toCodeSent(h)
    submitCode(h)
    h.openWalletSession.latest().answer.reject(
      new WalletSignInError('locked', WALLET_SIGN_IN_TEXT.locked('18:42'), {
        retryAfterSeconds: 900,
        until: '2026-06-15T18:42:00.000Z',
      }),
    )
    await waitFor(h.actor, (s) => s.matches('locked'))
    expect(h.actor.getSnapshot().context).toMatchObject({
      error: 'Too many tries. Try again after 18:42.',
      lockSeconds: 900,
      lockedUntil: '2026-06-15T18:42:00.000Z',
    })
    h.clock.increment(900_000 - 1)
    expect(h.actor.getSnapshot().value).toBe('locked')
    h.clock.increment(1)
    expect(h.actor.getSnapshot().value).toBe('enteringContact')
    expect(h.actor.getSnapshot().context).toMatchObject({
      contact: ' Jane@Example.com ',
      error: null,
      lockedUntil: null,
    })
  })

  it('another contact can be used at once during a lock', async () => {
    const h = start()
    await toCodeSent(h)
    submitCode(h)
    h.openWalletSession
      .latest()
      .answer.reject(
        new WalletSignInError('locked', 'Locked.', { retryAfterSeconds: 900, until: 'x' }),
      )
    await waitFor(h.actor, (s) => s.matches('locked'))
    h.actor.send({ type: 'contact.edit' })
    expect(h.actor.getSnapshot().value).toBe('enteringContact')
    expect(h.actor.getSnapshot().context.error).toBeNull()
  })

  it('a failed check keeps the code; Try again checks the same code again', async () => {
    const h = start()
    await toCodeSent(h)
    submitCode(h, '654321')
    h.openWalletSession.latest().answer.reject(new WalletSignInError('failed', 'No connection.'))
    await waitFor(h.actor, (s) => s.matches({ codeSent: 'verifyFailed' }))
    expect(h.actor.getSnapshot().context).toMatchObject({ code: '654321', error: 'No connection.' })
    h.actor.send({ type: 'retry' })
    expect(h.actor.getSnapshot().matches({ codeSent: 'verifying' })).toBe(true)
    expect(h.openWalletSession.calls.map((c) => c.input.code)).toEqual(['654321', '654321'])
  })
})

describe('wallet sign-in: a new code', () => {
  it('is offered 30 s after the code was sent, on the machine clock', async () => {
    const h = start()
    await toCodeSent(h)
    expect(h.actor.getSnapshot().can({ type: 'code.resend' })).toBe(false)
    h.clock.increment(29_999)
    expect(h.actor.getSnapshot().context.canResend).toBe(false)
    h.clock.increment(1)
    expect(h.actor.getSnapshot().context.canResend).toBe(true)
    h.actor.send({ type: 'code.resend' })
    expect(h.actor.getSnapshot().value).toBe('sendingCode')
  })

  it("waits as long as the server says, from each code's sending", async () => {
    const h = start()
    h.actor.send({ type: 'contact.change', value: 'jane@example.com' })
    h.actor.send({ type: 'contact.submit' })
    h.sendWalletCode.latest().answer.resolve({ sent: true, resend_after_seconds: 45 })
    await waitFor(h.actor, (s) => s.matches('codeSent'))
    h.clock.increment(30_000)
    expect(h.actor.getSnapshot().context.canResend).toBe(false)
    h.clock.increment(15_000)
    expect(h.actor.getSnapshot().context.canResend).toBe(true)
  })

  it('a wrong code or a failed check does not restart the wait', async () => {
    const h = start()
    await toCodeSent(h)
    h.clock.increment(20_000)
    submitCode(h)
    h.openWalletSession.latest().answer.reject(new WalletSignInError('wrong', 'Wrong.'))
    await waitFor(h.actor, (s) => s.matches({ codeSent: 'wrongCode' }))
    h.actor.send({ type: 'code.submit' })
    h.openWalletSession.latest().answer.reject(new WalletSignInError('failed', 'Offline.'))
    await waitFor(h.actor, (s) => s.matches({ codeSent: 'verifyFailed' }))
    h.clock.increment(10_000)
    expect(h.actor.getSnapshot().context.canResend).toBe(true)
  })

  it('going back to the contact keeps it as typed', async () => {
    const h = start()
    await toCodeSent(h, 'jane@example.com')
    h.actor.send({ type: 'contact.edit' })
    expect(h.actor.getSnapshot().value).toBe('enteringContact')
    expect(h.actor.getSnapshot().context.contact).toBe('jane@example.com')
  })
})
