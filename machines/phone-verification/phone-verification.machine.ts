import { assign, fromPromise, setup } from 'xstate'
import { isConfirmCodeValid } from '#domain/fields.ts'
import type {
  GetCodeAnswer,
  GetCodeInput,
  VerifyCodeAnswer,
  VerifyCodeInput,
} from '#domain/sign-up/api.ts'
import { SIGN_UP_MESSAGES } from '#domain/sign-up/messages.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'

/** How long a resend waits after a code was sent (30 s resend gap). */
export const RESEND_COOLDOWN_MS = 30_000

/** Where a code goes: the form's e-mail, phone and phone country code. */
export type PhoneTarget = GetCodeInput

/** A phone that passed verification, with its verification id. */
export type VerifiedPhone = { authyId: string; phone: string }

/** Input: a phone verified earlier (Back to step 1, a restored wizard) starts verified. */
export type PhoneVerificationInput = { verified?: VerifiedPhone | null }

export type PhoneVerificationContext = {
  /** Whether the surrounding form's fields are valid (Get Code needs them). */
  fieldsValid: boolean
  /** The form's current e-mail, phone and country code. */
  target: PhoneTarget | null
  /** Where the current code was sent. */
  sentTo: PhoneTarget | null
  /** The confirmation code typed so far. */
  code: string
  authyId: string | null
  /** When a resend becomes possible (epoch ms), for the view's countdown. */
  resendAvailableAt: number | null
  /** 'Confirmation Code is sent' once a code went out. */
  notice: string | null
  /** The last failure: the server's message, or 'Incorrect Confirmation Code entered'. */
  error: string | null
  verified: VerifiedPhone | null
}

export type PhoneVerificationEvent =
  | { type: 'fields.change'; valid: boolean; target: PhoneTarget }
  | { type: 'code.change'; code: string }
  | { type: 'code.send' }
  | { type: 'code.verify' }

function sameTarget(a: PhoneTarget | null, b: PhoneTarget | null): boolean {
  return (
    a !== null &&
    b !== null &&
    a.email === b.email &&
    a.phone === b.phone &&
    a.countryCode === b.countryCode
  )
}

/**
 * Phone verification by SMS code, its own flow so that the sign-up wizard (as a child on step 1)
 * and personnel registration share it. The form tells it whether its fields are valid and what
 * they hold (`fields.change`); Get Code (`code.send`) is possible when they are valid; after
 * 'Confirmation Code is sent' the code input opens and Verify (`code.verify`) is possible once
 * the code has 6 characters; a wrong code says 'Incorrect Confirmation Code entered'. A resend
 * waits 30 seconds (`resendCooldown`). Verified is final: its output is the verified phone and
 * both buttons and the phone input lock. Changing the phone or e-mail after a code was sent
 * starts over.
 *
 * Actors (supplied with `.provide`): `sendCode` → `{authyId}`, `verifyCode` → `{verified}`; each
 * rejects with an Error carrying the server's message.
 */
export const phoneVerificationMachine = setup({
  types: {
    context: {} as PhoneVerificationContext,
    events: {} as PhoneVerificationEvent,
    input: {} as PhoneVerificationInput,
    output: {} as VerifiedPhone,
  },
  actors: {
    sendCode: fromPromise<GetCodeAnswer, GetCodeInput>(() =>
      Promise.reject(new Error('sendCode: not provided')),
    ),
    verifyCode: fromPromise<VerifyCodeAnswer, VerifyCodeInput>(() =>
      Promise.reject(new Error('verifyCode: not provided')),
    ),
  },
  guards: {
    isAlreadyVerified: ({ context }) => context.verified !== null,
    areFieldsValid: ({ context }) => context.fieldsValid && context.target !== null,
    isCodeValid: ({ context }) => isConfirmCodeValid(context.code),
    hasSentCode: ({ context }) => context.authyId !== null,
    isVerified: (_, params: { verified: boolean }) => params.verified,
    isTargetChanged: ({ context, event }) =>
      event.type === 'fields.change' && !sameTarget(context.sentTo, event.target),
  },
  actions: {
    assignFields: assign(({ event }) =>
      event.type === 'fields.change' ? { fieldsValid: event.valid, target: event.target } : {},
    ),
    assignCode: assign(({ event }) =>
      event.type === 'code.change' ? { code: event.code, error: null } : {},
    ),
    clearSentCode: assign({
      sentTo: null,
      authyId: null,
      code: '',
      notice: null,
      error: null,
      resendAvailableAt: null,
    }),
  },
  delays: {
    // What remains of the 30 s since the last send, so that coming back from a wrong code does
    // not restart the wait.
    resendCooldown: ({ context }) => Math.max(0, (context.resendAvailableAt ?? 0) - Date.now()),
  },
}).createMachine({
  id: 'phoneVerification',
  context: ({ input }) => ({
    fieldsValid: false,
    target: null,
    sentTo: null,
    code: '',
    authyId: input?.verified?.authyId ?? null,
    resendAvailableAt: null,
    notice: null,
    error: null,
    verified: input?.verified ?? null,
  }),
  initial: 'starting',
  on: {
    'fields.change': { actions: 'assignFields' },
    'code.change': { actions: 'assignCode' },
  },
  states: {
    starting: {
      description: 'Decides whether the phone was verified before (input) or must be now.',
      always: [{ guard: 'isAlreadyVerified', target: 'verified' }, { target: 'idle' }],
    },
    idle: {
      description: 'No code yet. Get Code is enabled when the form fields are valid.',
      on: {
        'code.send': { guard: 'areFieldsValid', target: 'sendingCode' },
      },
    },
    sendingCode: {
      description: 'Asking the server to text a code to the phone.',
      entry: assign(({ context }) => ({ sentTo: context.target, error: null, notice: null })),
      invoke: {
        id: 'sendCode',
        src: 'sendCode',
        input: ({ context }) => context.sentTo as PhoneTarget,
        onDone: {
          target: 'codeSent',
          actions: assign(({ event }) => ({
            authyId: event.output.authyId,
            code: '',
            notice: SIGN_UP_MESSAGES.codeSent,
            resendAvailableAt: Date.now() + RESEND_COOLDOWN_MS,
          })),
        },
        onError: [
          {
            guard: 'hasSentCode',
            target: 'codeSent',
            actions: assign(({ event }) => ({
              error: errorMessage(event.error, SIGN_UP_MESSAGES.generic),
            })),
          },
          {
            target: 'idle',
            actions: assign(({ event }) => ({
              sentTo: null,
              error: errorMessage(event.error, SIGN_UP_MESSAGES.generic),
            })),
          },
        ],
      },
    },
    codeSent: {
      description:
        'A code went out: the code input is open; Verify is enabled once the code is valid.',
      initial: 'coolingDown',
      on: {
        'code.verify': { guard: 'isCodeValid', target: 'verifying' },
        'fields.change': [
          { guard: 'isTargetChanged', target: 'idle', actions: ['assignFields', 'clearSentCode'] },
          { actions: 'assignFields' },
        ],
      },
      states: {
        coolingDown: {
          description: 'A resend must wait until 30 seconds have passed since the last send.',
          after: { resendCooldown: 'resendReady' },
        },
        resendReady: {
          description: 'Get Code may send a new code.',
          on: {
            'code.send': { guard: 'areFieldsValid', target: '#phoneVerification.sendingCode' },
          },
        },
      },
    },
    verifying: {
      description: 'Checking the typed code with the server.',
      entry: assign({ error: null }),
      invoke: {
        id: 'verifyCode',
        src: 'verifyCode',
        input: ({ context }) => ({
          authyId: context.authyId ?? '',
          phone: context.sentTo?.phone ?? '',
          code: context.code,
        }),
        onDone: [
          {
            guard: {
              type: 'isVerified',
              params: ({ event }) => ({ verified: event.output.verified }),
            },
            target: 'verified',
            actions: assign(({ context }) => ({
              verified: { authyId: context.authyId ?? '', phone: context.sentTo?.phone ?? '' },
              notice: null,
            })),
          },
          {
            target: 'codeSent',
            actions: assign({ error: SIGN_UP_MESSAGES.incorrectCode }),
          },
        ],
        onError: {
          target: 'codeSent',
          actions: assign({ error: SIGN_UP_MESSAGES.incorrectCode }),
        },
      },
    },
    verified: {
      description: 'The phone is verified: both buttons and the phone input are locked.',
      type: 'final',
    },
  },
  output: ({ context }) => context.verified as VerifiedPhone,
})
