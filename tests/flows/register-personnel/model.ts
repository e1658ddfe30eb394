/**
 * The personnel registration's model and flow: the fixture events the real machine is walked
 * with, what tells its states apart, the words a person would use for each state and event, and
 * how each situation starts in the running product. The flow's second section is the phone
 * verification on the registration form (its model is `tests/flows/phone-verification/model.ts`).
 * The view test (`view.test.tsx`) and the browser replay (`browser.spec.ts`) replay the same paths.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import type { RegistrationDetails } from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import {
  type RegisteredPersonnel,
  type RegisterPersonnelEvent,
  type RegisterPersonnelInput,
  registerPersonnelMachine,
} from '#machines/personnel/register-personnel.machine.ts'
import type { VerifiedPhone } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  phoneFixtures,
  phoneStep,
  phoneVerificationModel,
} from '#tests/flows/phone-verification/model.ts'
import type { CallAnswers, FlowSpec, Model, QaPath, QaStep, StepPlan } from '#tests/mbt/index.ts'

/** What the invitation link carries and what the fake server answers. */
export const fixtures = {
  input: { invitationId: 'inv-fixture' } satisfies RegisterPersonnelInput,
  invitation: {
    first_name: 'Jordan',
    last_name: 'Lee',
    email: 'jordan.lee@example.com',
    position: 'Provider',
    title: 'Dr.',
    practice_name: 'Glow Demo Med Spa',
  } satisfies InvitationPreview,
  phone: phoneFixtures.phone,
  password: 'Secret123',
  code: phoneFixtures.code,
  authyId: phoneFixtures.authyId,
  user: { id: 42, email: 'jordan.lee@example.com' } satisfies RegisteredPersonnel['user'],
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

/** The phone the phone verification hands to the registration. */
export const fixtureVerifiedPhone: VerifiedPhone = {
  authyId: fixtures.authyId,
  phone: fixtures.phone,
}

/** Events the graph may take, besides the person's: the actors' answers and the child's end. */
export type RegisterPersonnelModelEvent =
  | RegisterPersonnelEvent
  | CallAnswers<'loadInvitation', InvitationPreview>
  | { type: 'xstate.done.actor.phoneVerification'; output: VerifiedPhone }
  | CallAnswers<'registerPersonnel', RegisteredPersonnel>

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
const stateDescriptions: Record<string, string> = {
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
const eventDescriptions: Record<RegisterPersonnelModelEvent['type'], string> = {
  'xstate.done.actor.loadInvitation': `Open the invitation link: the invitation for ${fixtures.invitation.email} (${fixtures.invitation.position}) loads`,
  'xstate.error.actor.loadInvitation': 'Open a link whose invitation is unknown or revoked',
  'xstate.done.actor.phoneVerification': `Type ${fixtures.phone} as Phone number and ${fixtures.password} as Password and Confirm password, click Get Code, type the code from the SMS (${fixtures.code}) and click Verify Code`,
  'form.submit': 'Click Submit',
  'xstate.done.actor.registerPersonnel': 'The server creates your account',
  'xstate.error.actor.registerPersonnel': `The server refuses: you see "${fixtures.registerFailure}"`,
}

/** The part of a registration snapshot the screen shows. */
export function registrationSignature(snapshot: AnyMachineSnapshot): string {
  const { error, verifiedPhone, invitation } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    error,
    verified: verifiedPhone !== null,
    loaded: invitation !== null,
  })
}

/** The registration's model. */
export const registerPersonnelModel: Model = {
  name: 'registerPersonnel',
  title: 'Personnel registration',
  source: {
    file: 'machines/personnel/register-personnel.machine.ts',
    name: 'registerPersonnelMachine',
    doc: 'register-personnel',
  },
  machine: registerPersonnelMachine,
  events: registerPersonnelEvents,
  scenarios: [{ name: 'Open the invitation link', input: fixtures.input }],
  signature: registrationSignature,
  states: stateDescriptions,
  describeEvent: (event: EventObject) =>
    eventDescriptions[event.type as RegisterPersonnelModelEvent['type']] ?? '',
}

// ---------------------------------------------------------------------------------------------
// The running product: how each situation starts

function start(path: QaPath): string {
  if (path.steps.some((step) => step.event.type === 'xstate.error.actor.loadInvitation')) {
    return 'Open an invitation link that is not valid (unknown or revoked): the replay opens /signup/personnel/ followed by a made-up id.'
  }
  return 'As the demo Admin, invite a new person (Personnel, Invite: Dr. Jordan Lee, Provider, with an e-mail that has no account yet) and open the link from the e-mail (the development outbox is at /api/dev/outbox). The replay invites through the API.'
}

function step(path: QaPath, i: number): StepPlan {
  const { event } = path.steps[i] as QaStep
  if (event.type === 'xstate.error.actor.registerPersonnel') {
    return {
      note: "Meanwhile someone signed up a new practice with the invited e-mail, so the server refuses a second account with it. The replay does that sign-up through the API while Submit's request is held.",
    }
  }
  if (event.type === 'xstate.done.actor.phoneVerification') {
    return {
      note: 'Use a phone number that has had no code in the last 30 seconds; the code arrives by SMS (the development outbox).',
    }
  }
  return {}
}

/** The personnel registration flow: the registration, and the phone verification on its form. */
export const registerPersonnelFlow: FlowSpec = {
  id: 'register-personnel',
  title: 'Personnel registration',
  intro:
    'Registration by invitation at /signup/personnel/{id}: the form pre-filled from the invitation, the phone verified by an SMS code, Submit.',
  viewTest: 'tests/flows/register-personnel/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'registerPersonnel',
      model: registerPersonnelModel,
      title: 'Personnel registration',
      intro:
        'Paths of the registration machine: the invitation behind the link, the verified phone, Submit and its answers.',
      host: () => 'local',
      start,
      step,
    },
    {
      key: 'personnelPhone',
      model: phoneVerificationModel,
      title: 'Phone verification on the registration form',
      intro:
        'Paths of the phone verification machine as the registration form runs it (the same machine as step 1 of the sign-up wizard).',
      // An invitation never comes with a verified phone.
      scenarios: ['new phone'],
      scenarioName: () => 'Open the invitation link',
      host: () => 'local',
      start,
      step: phoneStep,
    },
  ],
}
