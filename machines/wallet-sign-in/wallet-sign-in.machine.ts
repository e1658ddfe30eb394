import { assign, fromPromise, setup } from 'xstate'
import {
  WALLET_CODE_LENGTH,
  WALLET_MESSAGES,
  WALLET_RESEND_AFTER_SECONDS,
  type WalletCodeAnswer,
  type WalletSessionAnswer,
} from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import {
  failureOf,
  type WalletSignInError,
  type WalletSignInFailure,
} from '#machines/wallet-sign-in/wallet-sign-in-error.ts'

/** What the page knows when it opens the sign-in. */
export type WalletSignInInput = { practiceId: number }

/** Input of the `sendWalletCode` call: `POST /api/wallet/{practiceId}/code`. */
export type SendWalletCodeInput = { practiceId: number; contact: string }

/** Input of the `openWalletSession` call: `POST /api/wallet/{practiceId}/session`. */
export type OpenWalletSessionInput = { practiceId: number; contact: string; code: string }

export type WalletSignInContext = {
  practiceId: number
  /** The e-mail or phone as the patient typed it: kept through every error. */
  contact: string
  /** Why the contact cannot be sent (shown under the field), or null. */
  contactError: string | null
  /** Where the current code went, as the patient typed it: "We sent a 6-digit code to …". */
  sentTo: string | null
  /** The code as the patient typed it: kept through a wrong code and a failure. */
  code: string
  /** Why the code cannot be checked (shown under the field), or null. */
  codeError: string | null
  /** The last refusal or failure, for the alert: wrong, expired, locked, or a call's sentence. */
  error: string | null
  /** Seconds between two codes, as the server said (30). */
  resendAfterSeconds: number
  /** Whether "Send a new code" is offered: the wait after the last code is over. */
  canResend: boolean
  /** Codes sent in this sign-in (the view restarts its countdown on each). */
  sendCount: number
  /** For a lock: how long it lasts (seconds) and when it ends (ISO 8601). */
  lockSeconds: number | null
  lockedUntil: string | null
  /** The patient session once signed in. */
  session: WalletSessionAnswer | null
}

export type WalletSignInEvent =
  | { type: 'contact.change'; value: string }
  | { type: 'contact.submit' }
  /** "Use a different e-mail or phone": back to the contact, as typed. */
  | { type: 'contact.edit' }
  | { type: 'code.change'; value: string }
  | { type: 'code.submit' }
  /** "Send a new code". */
  | { type: 'code.resend' }
  /** "Try again" after a failed call. */
  | { type: 'retry' }

/** The code without the spaces a patient may type ("123 456"). */
export function normaliseCode(code: string): string {
  return code.replace(/\s+/g, '')
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const PHONE_PATTERN = /^\+?[\d\s().-]+$/

/**
 * Why `contact` cannot be sent, or null when it looks like an e-mail or a phone (10 to 15
 * digits). A first check for the patient's typing only: the server parses the phone fully
 * (domain/wallet.ts `parseContact`) and its refusal is shown as sent. Not `parseContact` here:
 * it brings libphonenumber's metadata (about 120 KB, 30 KB gzipped) into the wallet's first load.
 */
export function contactProblem(contact: string): string | null {
  const text = contact.trim()
  if (text === '') return WALLET_MESSAGES.contactRequired
  if (text.includes('@')) {
    return text.length <= 254 && EMAIL_PATTERN.test(text) ? null : WALLET_MESSAGES.contactInvalid
  }
  const digits = text.replace(/\D/g, '').length
  return PHONE_PATTERN.test(text) && digits >= 10 && digits <= 15
    ? null
    : WALLET_MESSAGES.contactInvalid
}

/** Why `code` cannot be checked, or null when it has 6 digits. */
export function codeProblem(code: string): string | null {
  const digits = normaliseCode(code)
  return digits.length === WALLET_CODE_LENGTH && /^\d+$/.test(digits)
    ? null
    : WALLET_MESSAGES.codeFormat
}

function errorText(error: unknown): string {
  if (error instanceof Error && error.message.trim() !== '') return error.message
  return WALLET_SIGN_IN_TEXT.failed
}

/**
 * The patient wallet's sign-in by code (issue 35, MEMBERSHIPS.md section 6).
 *
 * The patient types an e-mail or a mobile phone (`contact.change`); Send (`contact.submit`) checks
 * it and asks the server for a code (`sendWalletCode`). The code step (`codeSent`) says where the
 * code went and opens the code field; Sign in (`code.submit`) checks the 6 digits with the server
 * (`openWalletSession`). "Send a new code" (`code.resend`) is offered once the server's wait
 * (30 s) has passed since the last code: one delayed transition (`resendWait`) on the machine's
 * clock, set on entering the code step and not restarted by a wrong code or a failure inside it.
 *
 * - A wrong code stays on the code step (`codeSent.wrongCode`) with the code as typed; changing it
 *   or trying it again goes on.
 * - An expired code (`expiredCode`) offers a new code.
 * - Too many wrong codes lock sign-in for the contact (`locked`): the server says for how long, the
 *   view says until when, and the lock's end (`lockWait`, the machine's clock) returns to the
 *   contact. A different contact can be used at once.
 * - A failure of either call (no connection, the server's error, a rate limit) says so and offers
 *   Try again (`retry`): `sendFailed` resends, `codeSent.verifyFailed` checks the code again.
 * - What the patient typed (contact and code) is kept through every error.
 * - Signed in is final; its output is the session `{token, expires_at}`.
 *
 * Calls (supplied with `.provide`): `sendWalletCode` → `{sent, resend_after_seconds}`,
 * `openWalletSession` → `{token, expires_at}`; each rejects with a `WalletSignInError` (its
 * `reason` picks the state, its message is the sentence).
 */
export const walletSignInMachine = setup({
  types: {
    context: {} as WalletSignInContext,
    events: {} as WalletSignInEvent,
    input: {} as WalletSignInInput,
    output: {} as WalletSessionAnswer,
  },
  actors: {
    sendWalletCode: fromPromise<WalletCodeAnswer, SendWalletCodeInput>(() =>
      Promise.reject(new Error('sendWalletCode: not provided')),
    ),
    openWalletSession: fromPromise<WalletSessionAnswer, OpenWalletSessionInput>(() =>
      Promise.reject(new Error('openWalletSession: not provided')),
    ),
  },
  guards: {
    isContactValid: ({ context }) => contactProblem(context.contact) === null,
    isCodeValid: ({ context }) => codeProblem(context.code) === null,
    canResend: ({ context }) => context.canResend,
    isFailure: (_, params: { failure: WalletSignInFailure; expected: WalletSignInFailure }) =>
      params.failure === params.expected,
  },
  actions: {
    assignContact: assign(({ event }) =>
      event.type === 'contact.change' ? { contact: event.value, contactError: null } : {},
    ),
    assignCode: assign(({ event }) =>
      event.type === 'code.change' ? { code: event.value, codeError: null } : {},
    ),
    clearError: assign({ error: null }),
  },
  delays: {
    resendWait: ({ context }) => context.resendAfterSeconds * 1000,
    lockWait: ({ context }) => (context.lockSeconds ?? 0) * 1000,
  },
}).createMachine({
  id: 'walletSignIn',
  context: ({ input }) => ({
    practiceId: input.practiceId,
    contact: '',
    contactError: null,
    sentTo: null,
    code: '',
    codeError: null,
    error: null,
    resendAfterSeconds: WALLET_RESEND_AFTER_SECONDS,
    canResend: false,
    sendCount: 0,
    lockSeconds: null,
    lockedUntil: null,
    session: null,
  }),
  initial: 'enteringContact',
  states: {
    enteringContact: {
      description: 'The patient types an e-mail or a mobile phone; Send me a code checks it.',
      on: {
        'contact.change': { actions: 'assignContact' },
        'contact.submit': [
          { guard: 'isContactValid', target: 'sendingCode' },
          {
            actions: assign(({ context }) => ({ contactError: contactProblem(context.contact) })),
          },
        ],
      },
    },
    sendingCode: {
      description: 'Asking the server to send a code to the contact.',
      entry: assign({ error: null, contactError: null, codeError: null }),
      invoke: {
        id: 'sendWalletCode',
        src: 'sendWalletCode',
        input: ({ context }) => ({
          practiceId: context.practiceId,
          contact: context.contact.trim(),
        }),
        onDone: {
          target: 'codeSent',
          actions: assign(({ context, event }) => ({
            sentTo: context.contact.trim(),
            code: '',
            codeError: null,
            resendAfterSeconds: event.output.resend_after_seconds,
            canResend: false,
            sendCount: context.sendCount + 1,
          })),
        },
        onError: {
          target: 'sendFailed',
          actions: assign(({ event }) => ({ error: errorText(event.error) })),
        },
      },
    },
    sendFailed: {
      description:
        'The code could not be sent: the reason, the contact as typed, and Try again to send it.',
      on: {
        retry: { target: 'sendingCode' },
        'contact.change': { target: 'enteringContact', actions: ['assignContact', 'clearError'] },
      },
    },
    codeSent: {
      description:
        'A code went out: where to, the code field, and Send a new code once the wait is over.',
      initial: 'entering',
      // The code's field error belongs to the code step.
      exit: assign({ codeError: null }),
      after: {
        resendWait: { actions: assign({ canResend: true }) },
      },
      on: {
        'code.resend': { guard: 'canResend', target: 'sendingCode' },
        'contact.edit': { target: 'enteringContact', actions: 'clearError' },
      },
      states: {
        entering: {
          description: 'The patient types the 6-digit code; Sign in checks its form first.',
          on: {
            'code.change': { actions: 'assignCode' },
            'code.submit': [
              { guard: 'isCodeValid', target: 'verifying' },
              { actions: assign(({ context }) => ({ codeError: codeProblem(context.code) })) },
            ],
          },
        },
        verifying: {
          description: 'Checking the code with the server; the field and the buttons wait.',
          entry: assign({ error: null, codeError: null }),
          invoke: {
            id: 'openWalletSession',
            src: 'openWalletSession',
            input: ({ context }) => ({
              practiceId: context.practiceId,
              contact: context.sentTo ?? context.contact.trim(),
              code: normaliseCode(context.code),
            }),
            onDone: {
              target: '#walletSignIn.signedIn',
              actions: assign(({ event }) => ({ session: event.output })),
            },
            onError: [
              {
                guard: {
                  type: 'isFailure',
                  params: ({ event }) => ({ failure: failureOf(event.error), expected: 'wrong' }),
                },
                target: 'wrongCode',
                actions: assign({ error: WALLET_SIGN_IN_TEXT.codeWrong }),
              },
              {
                guard: {
                  type: 'isFailure',
                  params: ({ event }) => ({ failure: failureOf(event.error), expected: 'expired' }),
                },
                target: '#walletSignIn.expiredCode',
                actions: assign({ error: WALLET_SIGN_IN_TEXT.codeExpired }),
              },
              {
                guard: {
                  type: 'isFailure',
                  params: ({ event }) => ({ failure: failureOf(event.error), expected: 'locked' }),
                },
                target: '#walletSignIn.locked',
                actions: assign(({ event }) => {
                  const error = event.error as WalletSignInError
                  return {
                    error: error.message,
                    lockSeconds: error.retryAfterSeconds,
                    lockedUntil: error.until,
                  }
                }),
              },
              {
                target: 'verifyFailed',
                actions: assign(({ event }) => ({ error: errorText(event.error) })),
              },
            ],
          },
        },
        wrongCode: {
          description:
            'The server refused the code: "That code is not right", the code as typed, Sign in again.',
          on: {
            'code.change': { target: 'entering', actions: ['assignCode', 'clearError'] },
            'code.submit': { guard: 'isCodeValid', target: 'verifying' },
          },
        },
        verifyFailed: {
          description: 'The code could not be checked (no connection, the server): Try again.',
          on: {
            'code.change': { target: 'entering', actions: ['assignCode', 'clearError'] },
            retry: { target: 'verifying' },
          },
        },
      },
    },
    expiredCode: {
      description: 'The code is older than 10 minutes: "This code has expired" and a new code.',
      on: {
        'code.resend': { target: 'sendingCode' },
        'contact.edit': { target: 'enteringContact', actions: 'clearError' },
      },
    },
    locked: {
      description:
        'Too many wrong codes: sign-in is locked for the contact until the time shown; another contact can be used.',
      after: {
        lockWait: {
          target: 'enteringContact',
          actions: assign({ error: null, lockSeconds: null, lockedUntil: null }),
        },
      },
      on: {
        'contact.edit': {
          target: 'enteringContact',
          actions: assign({ error: null, lockSeconds: null, lockedUntil: null }),
        },
      },
    },
    signedIn: {
      description: 'The patient is signed in; the page opens the wallet with the session.',
      type: 'final',
    },
  },
  output: ({ context }) => context.session as WalletSessionAnswer,
})
