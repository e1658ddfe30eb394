import { assertEvent, assign, fromPromise, setup } from 'xstate'
import {
  AUTH_MESSAGES,
  type ForgotPasswordForm,
  type SignInForm,
  type SignInPayload,
} from '#domain/auth.ts'
import type { ResetPasswordForm } from '#domain/reset-password.ts'
import type { Session } from '#domain/session.ts'

/** How long the sign-in view shows 'Password Reset link is outdated!'. */
export const OUTDATED_NOTICE_MS = 3000

/** What the route knows when it opens the screen. */
export type SignInScreenInput = {
  /** The code of the reset link the visitor opened (`/reset?code=…`), if any. */
  resetCode?: string | null
  /** The code of the last reset this browser submitted: the same code again is outdated at once. */
  lastUsedResetCode?: string | null
  /** Whether sign-in needs a captcha token (false on localhost, in tester mode or without a site key). */
  captchaRequired: boolean
  /** True right after an invited person finished the personnel sign-up. */
  personnelSignedUp?: boolean
}

/** The screen's memory: only what the three views need to show. */
export type SignInScreenContext = {
  resetCode: string | null
  lastUsedResetCode: string | null
  captchaRequired: boolean
  captchaToken: string | null
  /** Shown under the captcha widget. */
  captchaError: string | null
  /** Red banner of the current view. */
  error: string | null
  /** Green banner of the sign-in view. */
  notice: string | null
  /** Remember me of the sign-in in flight. */
  remember: boolean
  /** Bumped after every failed sign-in: a captcha token is single-use, so the widget starts over. */
  signInAttempts: number
}

/** Every event the screen understands, named `<source>.<verb>`. */
export type SignInScreenEvent =
  | { type: 'signInForm.submit'; input: SignInForm }
  | { type: 'forgotForm.submit'; input: ForgotPasswordForm }
  | { type: 'resetForm.submit'; input: ResetPasswordForm }
  | { type: 'link.forgot' }
  | { type: 'link.back' }
  | { type: 'captcha.verified'; token: string }
  | { type: 'captcha.expired' }

/** Input of the `resetPassword` actor: the spec's `POST /auth/reset-password` body. */
export type ResetPasswordActorInput = {
  password: string
  passwordConfirmation: string
  code: string
}

/**
 * The text to show for a failed call: the actors reject with an `Error` whose message is already
 * the words for the user (the server's message, or a network text); anything else gets the
 * spec's fallback.
 */
function failureText(error: unknown, fallback: string): string {
  return error instanceof Error && error.message.trim() !== '' ? error.message : fallback
}

/**
 * The sign-in screen at `/signin` and `/reset`: the sign-in, forgot-password and
 * reset-password views as one statechart.
 *
 * - It opens in the reset view when the route carries a reset code, and in the sign-in view with
 *   'Password Reset link is outdated!' for 3 seconds (delay `outdatedNotice`) when that code is the
 *   one this browser already used.
 * - Sign-in needs a captcha token when `captchaRequired`; a missing token shows
 *   'This field is required.' and nothing is sent.
 * - Effects are named, not implemented: the actors `signIn`, `requestPasswordReset` and
 *   `resetPassword` reject with "not provided" until the route supplies them with `.provide()`,
 *   and the action slots `onSignedIn` (store the session, go to the dashboard), `onResetCodeUsed`
 *   (remember the code) and `onResetLinkOutdated` (leave the reset address) are the route's too.
 */
export const signInScreenMachine = setup({
  types: {
    input: {} as SignInScreenInput,
    context: {} as SignInScreenContext,
    events: {} as SignInScreenEvent,
  },
  actors: {
    signIn: fromPromise<Session, SignInPayload>(() =>
      Promise.reject(new Error('signIn: not provided')),
    ),
    requestPasswordReset: fromPromise<void, ForgotPasswordForm>(() =>
      Promise.reject(new Error('requestPasswordReset: not provided')),
    ),
    resetPassword: fromPromise<Session, ResetPasswordActorInput>(() =>
      Promise.reject(new Error('resetPassword: not provided')),
    ),
  },
  actions: {
    onSignedIn: (_, _params: { session: Session; remember: boolean }) => {},
    onResetCodeUsed: (_, _params: { code: string }) => {},
    onResetLinkOutdated: (_, _params: { code: string | null }) => {},
    clearMessages: assign({ error: null, notice: null, captchaError: null }),
    clearError: assign({ error: null }),
  },
  guards: {
    isResetCodeOutdated: ({ context }) =>
      context.resetCode !== null && context.resetCode === context.lastUsedResetCode,
    hasResetCode: ({ context }) => context.resetCode !== null,
    isCaptchaMissing: ({ context }) => context.captchaRequired && context.captchaToken === null,
  },
  delays: {
    outdatedNotice: OUTDATED_NOTICE_MS,
  },
}).createMachine({
  id: 'signInScreen',
  context: ({ input }) => ({
    resetCode: input.resetCode || null,
    lastUsedResetCode: input.lastUsedResetCode || null,
    captchaRequired: input.captchaRequired,
    captchaToken: null,
    captchaError: null,
    error: null,
    notice: input.personnelSignedUp ? AUTH_MESSAGES.personnelSignedUp : null,
    remember: false,
    signInAttempts: 0,
  }),
  initial: 'opening',
  states: {
    opening: {
      description: 'Chooses the first view from the address: a reset link or the sign-in form.',
      always: [
        { guard: 'isResetCodeOutdated', target: 'signIn.editing.linkOutdated' },
        { guard: 'hasResetCode', target: 'resetPassword' },
        { target: 'signIn' },
      ],
    },
    signIn: {
      description: 'The Sign In view: e-mail, password, Remember me, captcha, Forgot Password.',
      initial: 'editing',
      on: {
        'captcha.verified': {
          actions: assign({ captchaToken: ({ event }) => event.token, captchaError: null }),
        },
        'captcha.expired': { actions: assign({ captchaToken: null }) },
      },
      states: {
        editing: {
          description: 'The visitor fills in the sign-in form.',
          initial: 'ready',
          on: {
            'signInForm.submit': [
              {
                guard: 'isCaptchaMissing',
                actions: assign({ captchaError: AUTH_MESSAGES.captchaRequired }),
              },
              {
                target: 'submitting',
                actions: [
                  'clearMessages',
                  assign({ remember: ({ event }) => event.input.remember }),
                ],
              },
            ],
            'link.forgot': { target: '#signInScreen.forgotPassword', actions: 'clearMessages' },
          },
          states: {
            ready: {
              description: 'Nothing pending; banners from earlier attempts may show.',
            },
            linkOutdated: {
              description:
                "A reset link failed or was used before: 'Password Reset link is outdated!' shows for 3 seconds.",
              entry: [
                assign({ error: AUTH_MESSAGES.resetLinkOutdated }),
                {
                  type: 'onResetLinkOutdated',
                  params: ({ context }) => ({ code: context.resetCode }),
                },
              ],
              after: { outdatedNotice: { target: 'ready', actions: 'clearError' } },
            },
          },
        },
        submitting: {
          description: 'The e-mail and password are being checked; Sign In shows it is busy.',
          invoke: {
            id: 'signIn',
            src: 'signIn',
            input: ({ context, event }) => {
              assertEvent(event, 'signInForm.submit')
              return {
                identifier: event.input.email,
                password: event.input.password,
                remember: event.input.remember,
                ...(context.captchaToken ? { recaptchaToken: context.captchaToken } : {}),
              }
            },
            onDone: {
              target: '#signInScreen.signedIn',
              actions: {
                type: 'onSignedIn',
                params: ({ context, event }) => ({
                  session: event.output,
                  remember: context.remember,
                }),
              },
            },
            onError: {
              target: 'editing',
              actions: assign({
                error: ({ event }) => failureText(event.error, AUTH_MESSAGES.invalidCredentials),
                captchaToken: null,
                signInAttempts: ({ context }) => context.signInAttempts + 1,
              }),
            },
          },
        },
      },
    },
    forgotPassword: {
      description: 'The Forgot Password view: one e-mail field, Reset and Cancel.',
      initial: 'editing',
      states: {
        editing: {
          description: 'The visitor types the e-mail that should get a reset link.',
          on: {
            'forgotForm.submit': { target: 'sending', actions: 'clearError' },
            'link.back': { target: '#signInScreen.signIn', actions: 'clearMessages' },
          },
        },
        sending: {
          description: 'The reset link is being requested; Reset shows it is busy.',
          invoke: {
            id: 'requestPasswordReset',
            src: 'requestPasswordReset',
            input: ({ event }) => {
              assertEvent(event, 'forgotForm.submit')
              return event.input
            },
            onDone: { target: 'sent' },
            onError: {
              target: 'editing',
              actions: assign({
                error: ({ event }) => failureText(event.error, AUTH_MESSAGES.forgotPasswordFailure),
              }),
            },
          },
        },
        sent: {
          description:
            "The request went through: 'We have sent the link to your email', Check email and a way back.",
          on: { 'link.back': { target: '#signInScreen.signIn', actions: 'clearMessages' } },
        },
      },
    },
    resetPassword: {
      description:
        "The Reset Password view: 'Please enter a new password!', new and confirm password.",
      initial: 'editing',
      states: {
        editing: {
          description: 'The visitor types the new password twice.',
          on: { 'resetForm.submit': { target: 'submitting' } },
        },
        submitting: {
          description: 'The new password is being saved with the code from the link.',
          invoke: {
            id: 'resetPassword',
            src: 'resetPassword',
            input: ({ context, event }) => {
              assertEvent(event, 'resetForm.submit')
              return {
                password: event.input.password,
                passwordConfirmation: event.input.confirm_password,
                code: context.resetCode ?? '',
              }
            },
            onDone: {
              target: '#signInScreen.signedIn',
              actions: [
                {
                  type: 'onResetCodeUsed',
                  params: ({ context }) => ({ code: context.resetCode ?? '' }),
                },
                {
                  type: 'onSignedIn',
                  params: ({ event }) => ({ session: event.output, remember: false }),
                },
              ],
            },
            // Spec section 8: any reset failure reads as an outdated link, shown on the sign-in view;
            // the code is remembered so opening the same link again does not try it a second time.
            onError: {
              target: '#signInScreen.signIn.editing.linkOutdated',
              actions: {
                type: 'onResetCodeUsed',
                params: ({ context }) => ({ code: context.resetCode ?? '' }),
              },
            },
          },
        },
      },
    },
    signedIn: {
      description: 'Signed in (by the form or by a reset); the route takes over.',
      type: 'final',
    },
  },
})
