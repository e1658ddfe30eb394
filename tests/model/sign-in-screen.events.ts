/**
 * The sign-in screen's model: the fixture events xstate/graph walks the real machine with, the
 * start situations, and the words a person would use for each state and event. The model-based
 * test replays the paths through the views; the QA path writer (issue 6) prints them as steps.
 */
import type { Session } from '#domain/session.ts'
import type { SignInScreenEvent, SignInScreenInput } from '#machines/auth/sign-in-screen.machine.ts'

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
  forgotFailure: 'Password reset links can only point to this site.',
} as const

/** The delayed event that ends the outdated-link notice. */
export const OUTDATED_NOTICE_EVENT =
  'xstate.after.outdatedNotice.signInScreen.signIn.editing.linkOutdated'

/** Events the graph may take, besides the user's: the actors' answers and the notice's timer. */
export type SignInScreenModelEvent =
  | SignInScreenEvent
  | { type: 'xstate.done.actor.signIn'; output: Session }
  | { type: 'xstate.error.actor.signIn'; error: Error }
  | { type: 'xstate.done.actor.requestPasswordReset'; output: undefined }
  | { type: 'xstate.error.actor.requestPasswordReset'; error: Error }
  | { type: 'xstate.done.actor.resetPassword'; output: Session }
  | { type: 'xstate.error.actor.resetPassword'; error: Error }
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
export const stateDescriptions: Record<string, string> = {
  'signInScreen.signIn.editing.ready':
    'You see: the Sign In form with Email, Password, Remember me, Forgot Password and Sign In',
  'signInScreen.signIn.editing.linkOutdated':
    'You see: the Sign In form and "Password Reset link is outdated!" (for 3 seconds)',
  'signInScreen.signIn.submitting': 'You see: Sign In is busy',
  'signInScreen.forgotPassword.editing': 'You see: Forgot Password with Email, Reset and Cancel',
  'signInScreen.forgotPassword.sending': 'You see: Reset is busy',
  'signInScreen.forgotPassword.sent':
    'You see: "We have sent the link to your email", "Cool! Password recovery instruction has been sent to your email.", Check email and Back to Sign In',
  'signInScreen.resetPassword.editing':
    'You see: "Please enter a new password!" with New password, Confirm password and Reset and Sign In',
  'signInScreen.resetPassword.submitting': 'You see: Reset and Sign In is busy',
  'signInScreen.signedIn': 'You see: "Signing you in…", then the dashboard',
}

/** What the person does (or what happens) for each event. */
export const eventDescriptions: Record<SignInScreenModelEvent['type'], string> = {
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
