import type { SnapshotFrom } from 'xstate'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import type { Session } from '#domain/session.ts'
import type {
  SignInScreenEvent,
  SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import type { ActorSource } from '#src/lib/actor-source.ts'

/** The sign-in screen's machine state, as its actor holds it. */
export type SignInScreenSnapshot = SnapshotFrom<typeof signInScreenMachine>

/**
 * The sign-in screen's actor as its views use it: a started XState actor, or a deferred one whose
 * snapshot is `undefined` until the machine's code has arrived (src/lib/deferred-actor.ts).
 */
export type SignInScreenSource = ActorSource<SignInScreenSnapshot | undefined, SignInScreenEvent>

/** What the route decides the screen's action slots mean. */
export type SignInScreenActions = {
  /** Signed in by the form or by a reset: store the session, move on. */
  onSignedIn: (params: { session: Session; remember: boolean }) => void
  /** A reset code was submitted (successfully or not): remember it. */
  onResetCodeUsed: (params: { code: string }) => void
  /** The screen shows 'Password Reset link is outdated!' on the sign-in view: fix the address. */
  onResetLinkOutdated: (params: { code: string | null }) => void
}

/** Sends an event to the screen's machine: what a view's buttons and forms do. */
export type SendSignInScreenEvent = (event: SignInScreenEvent) => void

/** Everything the three views show, picked from the machine's state. */
export type SignInScreenView = {
  /** Which view is on screen. */
  screen: 'signIn' | 'forgotPassword' | 'resetPassword' | 'signedIn'
  /** The view's form is on its way to the server (its submit button shows it is busy). */
  busy: boolean
  /** Forgot Password: the link was sent. */
  sent: boolean
  notice: string | null
  error: string | null
  captchaRequired: boolean
  captchaError: string | null
  /** Failed sign-ins so far: the captcha widget starts over after each. */
  attempts: number
}

/** What the views show for the machine's state `snapshot`. */
export function signInScreenView(snapshot: SignInScreenSnapshot): SignInScreenView {
  const { context } = snapshot
  const screen = snapshot.matches('forgotPassword')
    ? 'forgotPassword'
    : snapshot.matches('resetPassword')
      ? 'resetPassword'
      : snapshot.matches('signedIn')
        ? 'signedIn'
        : 'signIn'
  return {
    screen,
    busy:
      snapshot.matches({ signIn: 'submitting' }) ||
      snapshot.matches({ forgotPassword: 'sending' }) ||
      snapshot.matches({ resetPassword: 'submitting' }),
    sent: snapshot.matches({ forgotPassword: 'sent' }),
    notice: context.notice,
    error: context.error,
    captchaRequired: context.captchaRequired,
    captchaError: context.captchaError,
    attempts: context.signInAttempts,
  }
}

/**
 * What the machine shows first for `input`, known without it, or null when only the machine can
 * tell (a reset code: the reset form, or the outdated notice). A test holds this to the machine's
 * own first state (sign-in-screen-view.test.ts).
 */
export function signInScreenViewBeforeStart(input: SignInScreenInput): SignInScreenView | null {
  if (input.resetCode) return null
  return {
    screen: 'signIn',
    busy: false,
    sent: false,
    notice: input.personnelSignedUp ? AUTH_MESSAGES.personnelSignedUp : null,
    error: null,
    captchaRequired: input.captchaRequired,
    captchaError: null,
    attempts: 0,
  }
}
