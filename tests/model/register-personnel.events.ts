/**
 * The personnel registration's model: the fixture events xstate/graph walks the real machine
 * with, and the words a person would use for each state and event. The model-based test replays
 * the paths through the view; the QA path writer (issue 6) prints them as steps.
 */
import type { RegistrationDetails } from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import type {
  RegisteredPersonnel,
  RegisterPersonnelEvent,
  RegisterPersonnelInput,
} from '#machines/personnel/register-personnel.machine.ts'
import {
  type PhoneTarget,
  type PhoneVerificationEvent,
  RESEND_COOLDOWN_MS,
  type VerifiedPhone,
} from '#machines/phone-verification/phone-verification.machine.ts'

/** What the invitation link carries and what the fake server answers. */
export const fixtures = {
  input: { invitationId: 'inv-fixture' } satisfies RegisterPersonnelInput,
  invitation: {
    first_name: 'Jordan',
    last_name: 'Lee',
    email: 'jordan.lee@example.com',
    position: 'Provider',
    title: 'Dr.',
  } satisfies InvitationPreview,
  phone: '5551234567',
  otherPhone: '5559876543',
  shortCode: '123',
  password: 'Secret123',
  code: '123456',
  authyId: 'authy-fixture',
  user: { id: 42, email: 'jordan.lee@example.com' } satisfies RegisteredPersonnel['user'],
  sendFailure: 'Please wait 12 seconds before requesting another Confirmation Code.',
  missing: 'This invitation link is not valid any more.',
  registerFailure: 'A person with this e-mail already has an account.',
} as const

/** The details the form sends once the person filled it in (names as pre-filled). */
export const fixtureDetails: RegistrationDetails = {
  title: fixtures.invitation.title,
  firstName: fixtures.invitation.first_name,
  lastName: fixtures.invitation.last_name,
  countryCode: '+1',
  phoneNumber: fixtures.phone,
  password: fixtures.password,
  password_confirm: fixtures.password,
}

export const fixtureVerifiedPhone: VerifiedPhone = {
  authyId: fixtures.authyId,
  phone: fixtures.phone,
}

/** Events the graph may take, besides the person's: the actors' answers and the child's end. */
export type RegisterPersonnelModelEvent =
  | RegisterPersonnelEvent
  | { type: 'xstate.done.actor.loadInvitation'; output: InvitationPreview }
  | { type: 'xstate.error.actor.loadInvitation'; error: Error }
  | { type: 'xstate.done.actor.phoneVerification'; output: VerifiedPhone }
  | { type: 'xstate.done.actor.registerPersonnel'; output: RegisteredPersonnel }
  | { type: 'xstate.error.actor.registerPersonnel'; error: Error }

/**
 * Every event of the machine with fixture payloads. An explicit list replaces xstate/graph's own
 * event discovery, so the actor answers are listed too.
 */
export const registerPersonnelEvents: RegisterPersonnelModelEvent[] = [
  { type: 'xstate.done.actor.loadInvitation', output: fixtures.invitation },
  { type: 'xstate.error.actor.loadInvitation', error: new Error(fixtures.missing) },
  { type: 'xstate.done.actor.phoneVerification', output: fixtureVerifiedPhone },
  { type: 'form.submit', details: fixtureDetails },
  { type: 'xstate.done.actor.registerPersonnel', output: { user: fixtures.user } },
  { type: 'xstate.error.actor.registerPersonnel', error: new Error(fixtures.registerFailure) },
]

/** What the person sees in each state (keyed by the state node id). */
export const stateDescriptions: Record<string, string> = {
  'registerPersonnel.loading': 'You see: Registration, "Opening your invitation…"',
  'registerPersonnel.editing':
    'You see: Registration Details with your names filled in, e-mail and position fixed',
  'registerPersonnel.editing.verifyingPhone':
    'You see: the form; Get Code, the confirmation code, Verify Code and Submit are disabled until you fill it in and verify your phone',
  'registerPersonnel.editing.phoneVerified':
    'You see: "Phone number verified"; the phone, Get Code and Verify Code are locked and Submit is enabled',
  'registerPersonnel.submitting': 'You see: Submit is busy',
  'registerPersonnel.registered':
    'You see: Sign In with "You are successfully Signed Up! Use your new credentials to sign into the system."',
  'registerPersonnel.notFound': 'You see: the page-not-found page (/404)',
}

/** What the person does (or what happens) for each event. */
export const eventDescriptions: Record<RegisterPersonnelModelEvent['type'], string> = {
  'xstate.done.actor.loadInvitation': `Open the invitation link: the invitation for ${fixtures.invitation.email} (${fixtures.invitation.position}) loads`,
  'xstate.error.actor.loadInvitation':
    'Open a link whose invitation is unknown, used, revoked or expired',
  'xstate.done.actor.phoneVerification': `Type ${fixtures.phone} as Phone number and ${fixtures.password} as Password and Confirm password, click Get Code, type the code from the SMS (${fixtures.code}) and click Verify Code`,
  'form.submit': 'Click Submit',
  'xstate.done.actor.registerPersonnel': 'The server creates your account',
  'xstate.error.actor.registerPersonnel': `The server refuses: you see "${fixtures.registerFailure}"`,
}

// The phone verification as the registration screen runs it (the invoked child).

/** Where the code goes: the invitation's e-mail and the phone typed. */
export const phoneTargets = {
  first: { email: fixtures.invitation.email, phone: fixtures.phone, countryCode: '+1' },
  other: { email: fixtures.invitation.email, phone: fixtures.otherPhone, countryCode: '+1' },
} as const satisfies Record<string, PhoneTarget>

/** The delayed event that ends the 30 s resend wait. */
export const RESEND_READY_EVENT =
  'xstate.after.resendCooldown.phoneVerification.codeSent.coolingDown'

/** How long the resend wait lasts (the model test moves the clock by it). */
export const RESEND_WAIT_MS = RESEND_COOLDOWN_MS

/** The child's events: the form's, the person's, the code calls' answers and the wait's end. */
export type PhoneModelEvent =
  | PhoneVerificationEvent
  | { type: 'xstate.done.actor.sendCode'; output: { authyId: string } }
  | { type: 'xstate.error.actor.sendCode'; error: Error }
  | { type: 'xstate.done.actor.verifyCode'; output: { verified: boolean } }
  | { type: 'xstate.error.actor.verifyCode'; error: Error }
  | { type: typeof RESEND_READY_EVENT }

/** Every event of the phone verification with fixture payloads. */
export const phoneEvents: PhoneModelEvent[] = [
  { type: 'fields.change', valid: true, target: phoneTargets.first },
  { type: 'fields.change', valid: false, target: phoneTargets.first },
  { type: 'fields.change', valid: true, target: phoneTargets.other },
  { type: 'code.change', code: fixtures.shortCode },
  { type: 'code.change', code: fixtures.code },
  { type: 'code.send' },
  { type: 'code.verify' },
  { type: 'xstate.done.actor.sendCode', output: { authyId: fixtures.authyId } },
  { type: 'xstate.error.actor.sendCode', error: new Error(fixtures.sendFailure) },
  { type: 'xstate.done.actor.verifyCode', output: { verified: true } },
  { type: 'xstate.done.actor.verifyCode', output: { verified: false } },
  {
    type: 'xstate.error.actor.verifyCode',
    error: new Error('Incorrect Confirmation Code entered'),
  },
  { type: RESEND_READY_EVENT },
]

/** What the person sees in each phone verification state (keyed by the state node id). */
export const phoneStateDescriptions: Record<string, string> = {
  'phoneVerification.idle':
    'You see: Get Code (enabled once the whole form is valid); the confirmation code and Verify Code are disabled',
  'phoneVerification.sendingCode': 'You see: Get Code is busy and the phone number is locked',
  'phoneVerification.codeSent':
    'You see: "Confirmation Code is sent"; the confirmation code input is enabled',
  'phoneVerification.codeSent.coolingDown':
    'You see: Get Code disabled and "You can ask for a new code 30 seconds after the last one."',
  'phoneVerification.codeSent.resendReady': 'You see: Get Code enabled again, to send a new code',
  'phoneVerification.verifying': 'You see: Verify Code is busy and the phone number is locked',
  'phoneVerification.verified':
    'You see: "Phone number verified"; phone, Get Code, the code and Verify Code are locked',
}

/** What the person does (or what happens) for each phone verification event. */
export const phoneEventDescriptions: Record<string, string> = {
  'fields.change': `Fill in the form (Phone number ${fixtures.phone} or ${fixtures.otherPhone}, Password and Confirm password ${fixtures.password}), or clear Last name to make it invalid`,
  'code.change': `Type ${fixtures.shortCode} (too short) or ${fixtures.code} as Confirmation code`,
  'code.send': 'Click Get Code',
  'code.verify': 'Click Verify Code',
  'xstate.done.actor.sendCode': 'The server texts a code to the phone',
  'xstate.error.actor.sendCode': `The server refuses: you see "${fixtures.sendFailure}"`,
  'xstate.done.actor.verifyCode':
    'The server checks the code: right (verified) or not (you see "Incorrect Confirmation Code entered")',
  'xstate.error.actor.verifyCode':
    'The server refuses the code: you see "Incorrect Confirmation Code entered"',
  [RESEND_READY_EVENT]: `Wait ${RESEND_COOLDOWN_MS / 1000} seconds: Get Code is enabled again`,
}

/**
 * The words for one phone verification event with its payload, for the QA path files (issue 6):
 * which phone, a valid or an emptied form, a short or a full code, a right or a wrong one.
 */
export function describePhoneEvent(event: PhoneModelEvent): string {
  switch (event.type) {
    case 'fields.change':
      if (!event.valid) return 'Clear Last name (the form is no longer complete)'
      return `Fill in the form: Phone number ${event.target.phone}, Password and Confirm password ${fixtures.password}`
    case 'code.change':
      return event.code.length < fixtures.code.length
        ? `Type ${event.code} as Confirmation code (too short)`
        : 'Type the 6-digit code from the SMS as Confirmation code'
    case 'xstate.done.actor.verifyCode':
      return event.output.verified
        ? 'The server accepts the code: you see "Phone number verified"'
        : 'The server does not accept the code: you see "Incorrect Confirmation Code entered"'
    default:
      return phoneEventDescriptions[event.type] ?? ''
  }
}
