/**
 * The sign-in screen's model and flow: the fixture events the real machine is walked with, the
 * start situations, what tells its states apart, the words a person would use for each state and
 * event, and what the running product needs for some steps. The view test (`view.test.tsx`) and
 * the browser replay (`browser.spec.ts`) replay the same paths; `npm run paths` prints them.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import {
  type SignInScreenEvent,
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import {
  type CallAnswers,
  type FlowSpec,
  type Model,
  nextAnswerFails,
  type QaPath,
  type QaStep,
  type StepPlan,
} from '#tests/mbt/index.ts'

/** The session the fake sign-in and reset answer with. */
export const fixtureSession: Session = {
  jwt: 'fixture.header.signature',
  user: {
    id: 1,
    email: 'demo@example.com',
    first_name: 'Demo',
    last_name: 'Admin',
    image_path: null,
    access_rights: 'Admin',
    practice_id: 1,
  },
  practice: { id: 1, practice_name: 'Glow Demo Med Spa', image_path: null },
}

/** What the person types and picks. */
export const fixtures = {
  signIn: { email: 'demo@example.com', password: 'DemoPass123', remember: true },
  forgot: { email: 'demo@example.com' },
  reset: { password: 'NewPass123', confirm_password: 'NewPass123' },
  captchaToken: 'captcha-token',
  resetCode: 'reset-code-1',
  signInFailure: 'Invalid Email or Password',
  resetFailure: 'Password Reset link is outdated!',
  /** The server's answer when the reset page is on a host it does not send links for. */
  // The server's answer when the reset page is not this product's (spec: the failure text).
  forgotFailure: AUTH_MESSAGES.forgotPasswordFailure,
} as const

/** The delayed event that ends the outdated-link notice. */
export const OUTDATED_NOTICE_EVENT =
  'xstate.after.outdatedNotice.signInScreen.signIn.editing.linkOutdated'

/** Events the graph may take, besides the user's: the actors' answers and the notice's timer. */
export type SignInScreenModelEvent =
  | SignInScreenEvent
  | CallAnswers<'signIn', Session>
  | CallAnswers<'requestPasswordReset', undefined>
  | CallAnswers<'resetPassword', Session>
  | { type: typeof OUTDATED_NOTICE_EVENT }

/**
 * Every event of the machine with fixture payloads. An explicit list replaces xstate/graph's own
 * event discovery, so the actor answers and the delay are listed too.
 */
export const signInScreenEvents: SignInScreenModelEvent[] = [
  { type: 'signInForm.submit', input: fixtures.signIn },
  { type: 'forgotForm.submit', input: fixtures.forgot },
  { type: 'resetForm.submit', input: fixtures.reset },
  { type: 'link.forgot' },
  { type: 'link.back' },
  { type: 'captcha.verified', token: fixtures.captchaToken },
  { type: 'captcha.expired' },
  { type: 'xstate.done.actor.signIn', output: fixtureSession },
  { type: 'xstate.error.actor.signIn', error: new Error(fixtures.signInFailure) },
  { type: 'xstate.done.actor.requestPasswordReset', output: undefined },
  // The words the real server answers with (a failure always has words, see src/lib/http.ts), so
  // that the QA paths describe what a person sees in the running product.
  { type: 'xstate.error.actor.requestPasswordReset', error: new Error(fixtures.forgotFailure) },
  { type: 'xstate.done.actor.resetPassword', output: fixtureSession },
  { type: 'xstate.error.actor.resetPassword', error: new Error(fixtures.resetFailure) },
  { type: OUTDATED_NOTICE_EVENT },
]

/** A way the screen can open. */
export type SignInScreenScenario = { name: string; input: SignInScreenInput }

/** The situations the screen opens in; together their paths reach every state and transition. */
export const signInScreenScenarios: SignInScreenScenario[] = [
  {
    name: 'Open /signin right after a personnel sign-up, captcha on',
    input: { captchaRequired: true, personnelSignedUp: true },
  },
  {
    name: 'Open the reset link from the e-mail',
    input: {
      captchaRequired: false,
      resetCode: fixtures.resetCode,
      lastUsedResetCode: 'older-code',
    },
  },
  {
    name: 'Open a reset link this browser already used',
    input: {
      captchaRequired: false,
      resetCode: fixtures.resetCode,
      lastUsedResetCode: fixtures.resetCode,
    },
  },
]

/** What the person sees in each state (keyed by the state node id). */
const stateDescriptions: Record<string, string> = {
  'signInScreen.signIn.editing.ready':
    'You see: the Sign In form with Email, Password, Remember me, Forgot Password and Sign In',
  'signInScreen.signIn.editing.linkOutdated':
    'You see: the Sign In form and "Password Reset link is outdated!" (for 3 seconds)',
  'signInScreen.signIn.submitting': 'You see: Sign In is busy',
  'signInScreen.forgotPassword.editing': 'You see: Forgot Password with Email, Reset and Cancel',
  'signInScreen.forgotPassword.sending': 'You see: Reset is busy',
  'signInScreen.forgotPassword.sent':
    'You see: "We have sent the link to your email", "Cool! Password recovery instruction has been sent to your email.", Check email (for a known webmail) and Back to Sign In',
  'signInScreen.resetPassword.editing':
    'You see: "Please enter a new password!" with New password, Confirm password and Reset and Sign In',
  'signInScreen.resetPassword.submitting': 'You see: Reset and Sign In is busy',
  'signInScreen.signedIn': 'You see: "Signing you in…", then the dashboard',
}

/** What the person does (or what happens) for each event. */
const eventDescriptions: Record<SignInScreenModelEvent['type'], string> = {
  'signInForm.submit': `Type ${fixtures.signIn.email} and ${fixtures.signIn.password}, tick Remember me, click Sign In`,
  'forgotForm.submit': `Type ${fixtures.forgot.email}, click Reset`,
  'resetForm.submit': `Type ${fixtures.reset.password} as New password and Confirm password, click Reset and Sign In`,
  'link.forgot': 'Click Forgot Password',
  'link.back': 'Click Cancel (or Back to Sign In)',
  'captcha.verified': 'Tick the human check',
  'captcha.expired': 'Wait until the human check expires',
  'xstate.done.actor.signIn': 'The server accepts the e-mail and password',
  'xstate.error.actor.signIn': `The server refuses: you see "${fixtures.signInFailure}"`,
  'xstate.done.actor.requestPasswordReset': 'The server takes the request',
  'xstate.error.actor.requestPasswordReset': `The server will not e-mail a reset link for this host: you see "${fixtures.forgotFailure}"`,
  'xstate.done.actor.resetPassword': 'The server saves the new password',
  'xstate.error.actor.resetPassword': `The server refuses the link: you see "${fixtures.resetFailure}"`,
  [OUTDATED_NOTICE_EVENT]: 'Wait 3 seconds: the notice goes away',
}

/**
 * The part of a snapshot the screen shows: the state and the banners. The attempt counter is
 * left out, or every failed sign-in would be a new state and the graph would never end.
 */
export function screenSignature(snapshot: AnyMachineSnapshot): string {
  const { error, notice, captchaError, captchaToken } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    error,
    notice,
    captchaError,
    hasToken: captchaToken !== null,
  })
}

/** The sign-in screen's model. */
export const signInScreenModel: Model = {
  name: 'signInScreen',
  title: 'Sign-in screen',
  source: {
    file: 'machines/auth/sign-in-screen.machine.ts',
    name: 'signInScreenMachine',
    doc: 'sign-in-screen',
  },
  machine: signInScreenMachine,
  events: signInScreenEvents,
  scenarios: signInScreenScenarios,
  signature: screenSignature,
  allows: (snapshot, event) => {
    // Captcha events only where the widget is shown.
    if (event.type.startsWith('captcha.')) return snapshot.context.captchaRequired === true
    // The server refuses a reset link only for a host it does not send links for; the human
    // check is on exactly there (off on this machine), so the refusal belongs to that scenario.
    if (event.type === 'xstate.error.actor.requestPasswordReset') {
      return snapshot.context.captchaRequired === true
    }
    return true
  },
  states: stateDescriptions,
  describeEvent: (event: EventObject) =>
    eventDescriptions[event.type as SignInScreenModelEvent['type']] ?? '',
}

// ---------------------------------------------------------------------------------------------
// The running product: what the replay types and how each situation starts

/** Values the replay types where the model's fixtures would not get the real answer. */
export const REPLAY_INPUTS = {
  /** A password the server refuses for the demo account. */
  wrongPassword: 'Wrong-Pass-2026',
  /** The seeded account whose password the reset paths change (the demo Admin stays as seeded). */
  resetAccount: 'staff@example.com',
} as const

const [CAPTCHA, RESET_LINK, USED_LINK] = signInScreenScenarios.map((s) => s.name) as [
  string,
  string,
  string,
]

function start(path: QaPath): string {
  switch (path.scenario) {
    case CAPTCHA:
      return (
        'Open /signin under a host name other than this machine, where the human check (hCaptcha) ' +
        'is on, right after a personnel registration finished (it leaves the one-time success ' +
        'banner). The replay opens the app as glow.test and sets the banner flag the registration ' +
        'leaves (sessionStorage personnelSignedUp).'
      )
    case RESET_LINK:
      return path.steps.some((step) => step.event.type === 'xstate.error.actor.resetPassword')
        ? `On this machine, ask for a password reset for ${REPLAY_INPUTS.resetAccount} (Forgot Password), open the link from the e-mail here and, while the form is shown, use the same link once in another browser: the server has spent it (a link already spent when opened goes straight to Sign In). The replay spends it through the API.`
        : `On this machine, ask for a password reset for ${REPLAY_INPUTS.resetAccount} (Forgot Password) and open the link from the e-mail (the development outbox is at /api/dev/outbox). The path changes that account's password.`
    case USED_LINK:
      return `On this machine, open a reset link that this browser already used for a reset. The replay asks for a link for ${REPLAY_INPUTS.resetAccount} and records it as used, as Reset and Sign In does (localStorage lastResetCode).`
    default:
      throw new Error(`no start for the sign-in scenario "${path.scenario}"`)
  }
}

/** The sign-in view's banners and the human check, as they change. */
function extras(path: QaPath, i: number): string[] {
  const now = (path.steps[i] as QaStep).state.context
  const then = path.steps[i - 1]?.state.context
  const seen: string[] = []
  if (now.notice && now.notice !== then?.notice) seen.push(`the green banner "${now.notice}"`)
  if (now.captchaError && now.captchaError !== then?.captchaError) {
    seen.push(`"${now.captchaError}" under Human check`)
  }
  if (now.captchaToken && !then?.captchaToken) seen.push('the human check ticked')
  if (!now.captchaToken && then?.captchaToken) seen.push('the human check no longer ticked')
  return seen
}

function step(path: QaPath, i: number): StepPlan {
  const { event } = path.steps[i] as QaStep
  if (event.type === 'signInForm.submit' && nextAnswerFails(path, i, 'signIn')) {
    return {
      text: `Type demo@example.com and a wrong password (${REPLAY_INPUTS.wrongPassword}), tick Remember me, click Sign In`,
    }
  }
  if (event.type === 'captcha.expired') {
    return {
      note: 'While Sign In is busy: the replay holds the sign-in request in the browser until the stand-in widget has expired, then lets it through to the server.',
    }
  }
  if (event.type === 'xstate.error.actor.requestPasswordReset') {
    return {
      note: 'The app runs under glow.test, which is not this server’s PUBLIC_URL or one of its ALLOWED_ORIGINS, so the server refuses to send a link that points there.',
    }
  }
  return {}
}

/** The sign-in screen flow: one section, its own machine. */
export const signInScreenFlow: FlowSpec = {
  id: 'sign-in-screen',
  title: 'Sign-in screen',
  intro:
    'The screen at /signin and /reset: Sign In, Forgot Password and Reset Password. The demo Admin is demo@example.com / DemoPass123.',
  viewTest: 'tests/flows/sign-in-screen/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'signInScreen',
      model: signInScreenModel,
      title: 'Sign-in screen',
      intro: 'Paths of the sign-in screen machine, from its three ways to open.',
      extras,
      host: (path) => (path.scenario === CAPTCHA ? 'remote' : 'local'),
      start,
      step,
      intercepted: (path) =>
        path.scenario === CAPTCHA
          ? "hCaptcha's widget script is replaced by a stand-in with the same programming interface: hCaptcha cannot be reached from the test network, and the stand-in can be ticked and made to expire on demand"
          : undefined,
    },
  ],
}
