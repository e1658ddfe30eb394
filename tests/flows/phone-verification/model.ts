/**
 * The phone verification's model, once for every form that runs it (step 1 of the sign-up
 * wizard, the personnel registration form): the fixture events its graph is walked with, the
 * situations it starts from, what tells its states apart, a person's words for them, and what
 * the running product needs for some steps (the QA step plan). A parent flow adds it as a
 * section with its own start words; its drivers say how the form types the phone.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import { isConfirmCodeValid } from '#domain/fields.ts'
import {
  type PhoneTarget,
  type PhoneVerificationEvent,
  type PhoneVerificationInput,
  phoneVerificationMachine,
  RESEND_COOLDOWN_MS,
  type VerifiedPhone,
} from '#machines/phone-verification/phone-verification.machine.ts'
import {
  type CallAnswers,
  type Model,
  nextAnswerFails,
  type QaPath,
  type QaStep,
  type StepPlan,
} from '#tests/mbt/index.ts'

/** What the person types, and what the fake server answers. */
export const phoneFixtures = {
  email: 'jane.doe@example.com',
  phone: '5551234567',
  otherPhone: '5559876543',
  code: '123456',
  shortCode: '123',
  authyId: 'authy-fixture',
  // The real server's answer to a code asked for too soon (the QA paths replay it for real).
  sendFailure: 'Please wait 30 seconds before requesting another Confirmation Code.',
  wrongCode: 'Incorrect Confirmation Code entered',
} as const

/** Where the code goes, and a different phone (typing another number starts over). */
export const phoneTargets = {
  main: { email: phoneFixtures.email, phone: phoneFixtures.phone, countryCode: '+1' },
  other: { email: phoneFixtures.email, phone: phoneFixtures.otherPhone, countryCode: '+1' },
} as const satisfies Record<string, PhoneTarget>

/** The verified phone the verification hands to its parent. */
export const verifiedPhone: VerifiedPhone = {
  authyId: phoneFixtures.authyId,
  phone: phoneFixtures.phone,
}

/** The delayed event that ends the 30 s resend wait. */
export const RESEND_EVENT = 'xstate.after.resendCooldown.phoneVerification.codeSent.coolingDown'

/** Events of the graph: the form's and the person's, the code calls' answers and the wait's end. */
export type PhoneModelEvent =
  | PhoneVerificationEvent
  | CallAnswers<'sendCode', { authyId: string }>
  | CallAnswers<'verifyCode', { verified: boolean }>
  | { type: typeof RESEND_EVENT }

/** Every event with fixture payloads. */
export const phoneEvents: PhoneModelEvent[] = [
  { type: 'fields.change', valid: true, target: phoneTargets.main },
  { type: 'fields.change', valid: false, target: phoneTargets.main },
  { type: 'fields.change', valid: true, target: phoneTargets.other },
  { type: 'code.change', code: phoneFixtures.code },
  { type: 'code.change', code: phoneFixtures.shortCode },
  { type: 'code.send' },
  { type: 'code.verify' },
  { type: 'xstate.done.actor.sendCode', output: { authyId: phoneFixtures.authyId } },
  { type: 'xstate.error.actor.sendCode', error: new Error(phoneFixtures.sendFailure) },
  { type: 'xstate.done.actor.verifyCode', output: { verified: true } },
  { type: 'xstate.done.actor.verifyCode', output: { verified: false } },
  { type: 'xstate.error.actor.verifyCode', error: new Error(phoneFixtures.wrongCode) },
  { type: RESEND_EVENT },
]

/** The situations it starts from: a new phone, or one a reload kept verified. */
export const phoneScenarios: { name: string; input: PhoneVerificationInput }[] = [
  { name: 'new phone', input: {} },
  { name: 'verified before', input: { verified: verifiedPhone } },
]

/** What the form shows and the guards read. */
export function phoneSignature(snapshot: AnyMachineSnapshot): string {
  const { fieldsValid, target, sentTo, code, authyId, notice, error } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    fieldsValid,
    phone: target?.phone ?? null,
    sentTo: sentTo?.phone ?? null,
    codeValid: isConfirmCodeValid(code),
    hasAuthyId: authyId !== null,
    notice,
    error,
  })
}

/** The form can only be typed into while its inputs are open (not while a call runs). */
function phoneAllows(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  if (event.type === 'fields.change')
    return snapshot.matches('idle') || snapshot.matches('codeSent')
  if (event.type === 'code.change') return snapshot.matches('codeSent')
  return true
}

/** What the person sees in each state (keyed by state node id). */
const states: Record<string, string> = {
  'phoneVerification.idle':
    'You see: Get Code (enabled once every field of the form is valid), the confirmation code input disabled, Verify Code disabled',
  'phoneVerification.sendingCode': 'You see: Get Code is busy; the phone input is locked',
  'phoneVerification.codeSent':
    'You see: "Confirmation Code is sent" and the confirmation code input enabled',
  'phoneVerification.codeSent.coolingDown':
    'You see: Get Code disabled, with a note that a new code can be asked for 30 seconds after the last one',
  'phoneVerification.codeSent.resendReady': 'You see: Get Code enabled again, to send a new code',
  'phoneVerification.verifying': 'You see: Verify Code is busy; the phone input is locked',
  'phoneVerification.verified':
    'You see: "Phone number verified"; the phone input, Get Code, the code and Verify Code are locked',
}

/** What the person does, or what happens, for an event with its payload. */
function describeEvent(event: EventObject): string {
  const e = event as PhoneModelEvent
  switch (e.type) {
    case 'fields.change':
      if (!e.valid) return 'Empty the Last name field (the form is no longer complete)'
      return e.target.phone === phoneFixtures.phone
        ? `Fill in the form with Phone number ${e.target.phone}`
        : `Change the phone number to ${e.target.phone}`
    case 'code.change':
      return e.code.length < phoneFixtures.code.length
        ? `Type ${e.code} as Confirmation code (too short)`
        : `Type ${e.code} as Confirmation code`
    case 'code.send':
      return 'Click Get Code'
    case 'code.verify':
      return 'Click Verify Code'
    case 'xstate.done.actor.sendCode':
      return 'The code is texted: you see "Confirmation Code is sent"'
    case 'xstate.error.actor.sendCode':
      return `Sending fails: you see "${phoneFixtures.sendFailure}"`
    case 'xstate.done.actor.verifyCode':
      return e.output.verified
        ? 'The code is right: you see "Phone number verified"'
        : `The code is wrong: you see "${phoneFixtures.wrongCode}"`
    case 'xstate.error.actor.verifyCode':
      return `The server refuses the code: you see "${phoneFixtures.wrongCode}"`
    case RESEND_EVENT:
      return `Wait ${RESEND_COOLDOWN_MS / 1000} seconds: Get Code is enabled again`
    default:
      return ''
  }
}

/** The phone verification's model. */
export const phoneVerificationModel: Model = {
  name: 'phoneVerification',
  title: 'Phone verification',
  source: {
    file: 'machines/phone-verification/phone-verification.machine.ts',
    name: 'phoneVerificationMachine',
    doc: 'phone-verification',
  },
  machine: phoneVerificationMachine,
  events: phoneEvents,
  scenarios: phoneScenarios,
  signature: phoneSignature,
  allows: phoneAllows,
  states,
  describeEvent,
}

/**
 * Whether the 30-second wait is already over in the browser at step `i`: the replay moved the
 * browser's clock on after the last code went out, so entering the wait again ends it at once.
 * The model, which runs no clock, still calls that moment the wait.
 */
export function resendWaitIsOver(path: QaPath, i: number): boolean {
  let over = false
  for (let k = 1; k <= i; k++) {
    const type = (path.steps[k] as QaStep).event.type
    if (type === RESEND_EVENT) over = true
    if (type === 'xstate.done.actor.sendCode') over = false
  }
  return over
}

/** What the running product needs for a step of the phone verification, on any form. */
export function phoneStep(path: QaPath, i: number): StepPlan {
  const plan = phoneStepPlan(path, i)
  const { state } = path.steps[i] as QaStep
  if (state.matches({ codeSent: 'coolingDown' }) && resendWaitIsOver(path, i)) {
    const ready = states['phoneVerification.codeSent.resendReady'] ?? ''
    return { ...plan, seen: `${ready} (the 30 seconds are already over)` }
  }
  return plan
}

function phoneStepPlan(path: QaPath, i: number): StepPlan {
  const step = path.steps[i] as QaStep
  const previous = path.steps[i - 1]
  const event = step.event as PhoneModelEvent
  if (event.type === 'code.change' && event.code.length >= phoneFixtures.code.length) {
    return nextAnswerFails(path, i, 'verifyCode')
      ? {
          text: 'Type a wrong code (the code from the SMS with its last digit changed) as Confirmation code',
        }
      : { text: 'Type the 6-digit code from the SMS as Confirmation code' }
  }
  if (event.type === RESEND_EVENT) {
    return {
      note: "The replay moves the browser's clock on by 30 seconds instead of waiting; the server's clock keeps its own time.",
    }
  }
  if (event.type === 'xstate.error.actor.sendCode') {
    const resend = previous?.state.context.authyId !== null
    return {
      note: resend
        ? "The server's 30-second gap between two codes to one phone is still running (the replay moved only the browser's clock on), so it refuses the new code."
        : 'A code went to this phone less than 30 seconds ago (for example from another tab), so the server refuses another one. The replay asks for that code through the API just before.',
    }
  }
  if (event.type === 'xstate.done.actor.verifyCode' && !event.output.verified) {
    return {
      intercepted:
        'the server refuses a wrong code with an error (another path replays that); an answer that the code is not verified, without an error, is what this step checks, and only interception gives it.',
    }
  }
  return {}
}
