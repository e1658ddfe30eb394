import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createActor, fromPromise, waitFor } from 'xstate'
import type {
  GetCodeAnswer,
  GetCodeInput,
  VerifyCodeAnswer,
  VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import {
  type PhoneTarget,
  type PhoneVerificationInput,
  phoneVerificationMachine,
  RESEND_COOLDOWN_MS,
} from '#machines/phone-verification/phone-verification.machine.ts'
import {
  selectBusy,
  selectCanSendCode,
  selectCanVerifyCode,
  selectCodeInputEnabled,
  selectError,
  selectIsVerified,
  selectNotice,
  selectPhoneLocked,
  selectResendSecondsLeft,
} from '#machines/phone-verification/phone-verification.selectors.ts'
import { phoneTargets } from '#tests/flows/phone-verification/model.ts'
import { type Deferred, deferred } from '#tests/support/deferred.ts'

// The fixtures of the flow model (tests/flows/phone-verification/model.ts).
const target: PhoneTarget = phoneTargets.main

/** An actor whose calls wait for the test; each call's input is recorded. */
function start(input: PhoneVerificationInput = {}) {
  const sends: { input: GetCodeInput; answer: Deferred<GetCodeAnswer> }[] = []
  const verifies: { input: VerifyCodeInput; answer: Deferred<VerifyCodeAnswer> }[] = []
  const machine = phoneVerificationMachine.provide({
    actors: {
      sendCode: fromPromise<GetCodeAnswer, GetCodeInput>(({ input }) => {
        const answer = deferred<GetCodeAnswer>()
        sends.push({ input, answer })
        return answer.promise
      }),
      verifyCode: fromPromise<VerifyCodeAnswer, VerifyCodeInput>(({ input }) => {
        const answer = deferred<VerifyCodeAnswer>()
        verifies.push({ input, answer })
        return answer.promise
      }),
    },
  })
  const actor = createActor(machine, { input }).start()
  return { actor, sends, verifies }
}

async function sendCode(setup: ReturnType<typeof start>, authyId = 'authy-1') {
  const { actor, sends } = setup
  actor.send({ type: 'fields.change', valid: true, target })
  actor.send({ type: 'code.send' })
  sends.at(-1)?.answer.resolve({ authyId })
  await waitFor(actor, (s) => s.matches('codeSent'))
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date(2026, 5, 1, 12, 0, 0) })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('phone verification', () => {
  it('starts idle; Get Code needs valid fields', () => {
    const { actor } = start()
    expect(actor.getSnapshot().value).toBe('idle')
    expect(selectCanSendCode(actor.getSnapshot())).toBe(false)
    expect(selectCodeInputEnabled(actor.getSnapshot())).toBe(false)
    actor.send({ type: 'fields.change', valid: true, target })
    expect(selectCanSendCode(actor.getSnapshot())).toBe(true)
    actor.send({ type: 'fields.change', valid: false, target })
    expect(selectCanSendCode(actor.getSnapshot())).toBe(false)
    actor.send({ type: 'code.send' })
    expect(actor.getSnapshot().value).toBe('idle')
  })

  it('sends the code to the form target, then says "Confirmation Code is sent"', async () => {
    const setup = start()
    const { actor, sends } = setup
    actor.send({ type: 'fields.change', valid: true, target })
    actor.send({ type: 'code.send' })
    expect(actor.getSnapshot().value).toBe('sendingCode')
    expect(selectBusy(actor.getSnapshot())).toBe('sending')
    expect(selectPhoneLocked(actor.getSnapshot())).toBe(true)
    expect(sends.map((s) => s.input)).toEqual([target])
    sends[0]?.answer.resolve({ authyId: 'authy-1' })
    await waitFor(actor, (s) => s.matches('codeSent'))
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toEqual({ codeSent: 'coolingDown' })
    expect(selectNotice(snapshot)).toBe('Confirmation Code is sent')
    expect(snapshot.context.authyId).toBe('authy-1')
    expect(selectCodeInputEnabled(snapshot)).toBe(true)
    expect(selectCanSendCode(snapshot)).toBe(false)
    expect(selectCanVerifyCode(snapshot)).toBe(false)
    expect(selectPhoneLocked(snapshot)).toBe(false)
  })

  it('enables Verify once the code has 6 characters and verifies it', async () => {
    const setup = start()
    const { actor, verifies } = setup
    await sendCode(setup)
    actor.send({ type: 'code.change', code: '12345' })
    expect(selectCanVerifyCode(actor.getSnapshot())).toBe(false)
    actor.send({ type: 'code.verify' })
    expect(actor.getSnapshot().matches('codeSent')).toBe(true)
    actor.send({ type: 'code.change', code: '123456' })
    expect(selectCanVerifyCode(actor.getSnapshot())).toBe(true)
    actor.send({ type: 'code.verify' })
    expect(actor.getSnapshot().value).toBe('verifying')
    expect(selectBusy(actor.getSnapshot())).toBe('verifying')
    expect(verifies.map((v) => v.input)).toEqual([
      { authyId: 'authy-1', phone: '5551234567', code: '123456' },
    ])
    verifies[0]?.answer.resolve({ verified: true })
    await waitFor(actor, (s) => s.status === 'done')
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toBe('verified')
    expect(snapshot.output).toEqual({ authyId: 'authy-1', phone: '5551234567' })
    expect(selectIsVerified(snapshot)).toBe(true)
    expect(selectPhoneLocked(snapshot)).toBe(true)
    expect(selectCanSendCode(snapshot)).toBe(false)
    expect(selectCanVerifyCode(snapshot)).toBe(false)
    expect(selectCodeInputEnabled(snapshot)).toBe(false)
  })

  it.each([
    ['the server refuses the code', (d: Deferred<VerifyCodeAnswer>) => d.reject(new Error('400'))],
    [
      'the answer is not verified',
      (d: Deferred<VerifyCodeAnswer>) => d.resolve({ verified: false }),
    ],
  ])('a wrong code (%s) says "Incorrect Confirmation Code entered"', async (_, answer) => {
    const setup = start()
    const { actor, verifies } = setup
    await sendCode(setup)
    actor.send({ type: 'code.change', code: '000000' })
    actor.send({ type: 'code.verify' })
    answer(verifies[0]?.answer as Deferred<VerifyCodeAnswer>)
    await waitFor(actor, (s) => s.matches('codeSent'))
    expect(selectError(actor.getSnapshot())).toBe('Incorrect Confirmation Code entered')
    expect(selectCanVerifyCode(actor.getSnapshot())).toBe(true)
    actor.send({ type: 'code.change', code: '111111' })
    expect(selectError(actor.getSnapshot())).toBeNull()
  })

  it('a resend waits 30 seconds and shows the countdown', async () => {
    const setup = start()
    const { actor, sends } = setup
    await sendCode(setup)
    const sentAt = Date.now()
    expect(selectResendSecondsLeft(actor.getSnapshot(), sentAt)).toBe(30)
    vi.advanceTimersByTime(RESEND_COOLDOWN_MS - 1)
    expect(actor.getSnapshot().value).toEqual({ codeSent: 'coolingDown' })
    expect(selectResendSecondsLeft(actor.getSnapshot(), Date.now())).toBe(1)
    expect(selectCanSendCode(actor.getSnapshot())).toBe(false)
    vi.advanceTimersByTime(1)
    expect(actor.getSnapshot().value).toEqual({ codeSent: 'resendReady' })
    expect(selectResendSecondsLeft(actor.getSnapshot(), Date.now())).toBe(0)
    expect(selectCanSendCode(actor.getSnapshot())).toBe(true)
    actor.send({ type: 'code.send' })
    expect(actor.getSnapshot().value).toBe('sendingCode')
    sends[1]?.answer.resolve({ authyId: 'authy-2' })
    await waitFor(actor, (s) => s.matches({ codeSent: 'coolingDown' }))
    expect(actor.getSnapshot().context.authyId).toBe('authy-2')
    expect(sends).toHaveLength(2)
  })

  it('a wrong code does not restart the 30 second wait', async () => {
    const setup = start()
    const { actor, verifies } = setup
    await sendCode(setup)
    vi.advanceTimersByTime(20_000)
    actor.send({ type: 'code.change', code: '000000' })
    actor.send({ type: 'code.verify' })
    verifies[0]?.answer.reject(new Error('400'))
    await waitFor(actor, (s) => s.matches('codeSent'))
    expect(actor.getSnapshot().value).toEqual({ codeSent: 'coolingDown' })
    vi.advanceTimersByTime(10_000)
    expect(actor.getSnapshot().value).toEqual({ codeSent: 'resendReady' })
  })

  it('a failed first send shows the server message and stays idle', async () => {
    const { actor, sends } = start()
    actor.send({ type: 'fields.change', valid: true, target })
    actor.send({ type: 'code.send' })
    sends[0]?.answer.reject(new Error('Too many codes requested, try again later'))
    await waitFor(actor, (s) => s.matches('idle'))
    expect(selectError(actor.getSnapshot())).toBe('Too many codes requested, try again later')
    expect(selectCanSendCode(actor.getSnapshot())).toBe(true)
  })

  it('a failed resend keeps the code already sent', async () => {
    const setup = start()
    const { actor, sends } = setup
    await sendCode(setup)
    vi.advanceTimersByTime(RESEND_COOLDOWN_MS)
    actor.send({ type: 'code.send' })
    sends[1]?.answer.reject({ status: 500 })
    await waitFor(actor, (s) => s.matches('codeSent'))
    expect(actor.getSnapshot().context.authyId).toBe('authy-1')
    expect(selectError(actor.getSnapshot())).toBe('Ooops, something going wrong please try again')
  })

  it('changing the phone after a send starts over; other fields do not', async () => {
    const setup = start()
    const { actor } = setup
    await sendCode(setup)
    actor.send({ type: 'fields.change', valid: true, target: { ...target } })
    expect(actor.getSnapshot().matches('codeSent')).toBe(true)
    actor.send({ type: 'fields.change', valid: true, target: { ...target, phone: '5550000000' } })
    const snapshot = actor.getSnapshot()
    expect(snapshot.value).toBe('idle')
    expect(snapshot.context.authyId).toBeNull()
    expect(selectNotice(snapshot)).toBeNull()
    expect(selectCanSendCode(snapshot)).toBe(true)
  })

  it('starts verified when given a verified phone', () => {
    const { actor } = start({ verified: { authyId: 'a-9', phone: '5551234567' } })
    expect(actor.getSnapshot().status).toBe('done')
    expect(actor.getSnapshot().output).toEqual({ authyId: 'a-9', phone: '5551234567' })
  })

  it('fails loudly when the app forgets to provide the calls', async () => {
    const actor = createActor(phoneVerificationMachine, { input: {} }).start()
    actor.send({ type: 'fields.change', valid: true, target })
    actor.send({ type: 'code.send' })
    await waitFor(actor, (s) => s.matches('idle') && s.context.error !== null)
    expect(selectError(actor.getSnapshot())).toBe('sendCode: not provided')
  })
})
