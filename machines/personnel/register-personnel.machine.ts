import { assertEvent, assign, fromPromise, setup } from 'xstate'
import {
  PERSONNEL_MESSAGES,
  type PersonnelRegisterPayloadInput,
  type RegistrationDetails,
  toRegisterPayload,
} from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'
import {
  phoneVerificationMachine,
  type VerifiedPhone,
} from '#machines/phone-verification/phone-verification.machine.ts'

/** Input: the invitation id from the link `signup/personnel/{id}`. */
export type RegisterPersonnelInput = { invitationId: string }

/** What `registerPersonnel` answers: the new account. */
export type RegisteredPersonnel = { user: { id: number; email: string } }

export type RegisterPersonnelContext = {
  invitationId: string
  /** The invitation's names, e-mail, position and title, once loaded. */
  invitation: InvitationPreview | null
  /** The phone the child verification confirmed, with its verification id. */
  verifiedPhone: VerifiedPhone | null
  /** Why the last Submit failed (the server's message), else null. */
  error: string | null
}

/** Submit: the validated form details (the form only sends valid input). */
export type RegisterPersonnelEvent = { type: 'form.submit'; details: RegistrationDetails }

/**
 * Personnel registration by invitation. It loads the invitation
 * (`loadInvitation`); a missing one (unknown, used, revoked or expired) ends in `notFound` through
 * the `onInvitationMissing` slot: the route shows /404, or for a used or expired invitation
 * (`InvitationClosedError`) a page that says so. While editing, the phone is
 * verified by the shared phone verification, invoked as the child `phoneVerification` (the view
 * talks to it directly: fields, Get Code, code, Verify Code). Once it is done Submit
 * (`form.submit`) is possible; `registerPersonnel` sends the personnel model with the invitation's
 * e-mail and position and the verified phone; success ends in `registered` through the
 * `onRegistered` slot (the route shows the sign-in banner), failure returns with the server's
 * message.
 *
 * Actors (supplied with `.provide`): `loadInvitation` → the invitation preview,
 * `registerPersonnel` → `{user}`, and the child's `sendCode` / `verifyCode` (provide them on
 * `phoneVerificationMachine` and pass that as `phoneVerification`). Each rejects with an Error
 * carrying the server's message.
 */
export const registerPersonnelMachine = setup({
  types: {
    context: {} as RegisterPersonnelContext,
    events: {} as RegisterPersonnelEvent,
    input: {} as RegisterPersonnelInput,
    children: {} as { phoneVerification: 'phoneVerification' },
  },
  actors: {
    loadInvitation: fromPromise<InvitationPreview, { invitationId: string }>(() =>
      Promise.reject(new Error('loadInvitation: not provided')),
    ),
    registerPersonnel: fromPromise<RegisteredPersonnel, PersonnelRegisterPayloadInput>(() =>
      Promise.reject(new Error('registerPersonnel: not provided')),
    ),
    phoneVerification: phoneVerificationMachine,
  },
  actions: {
    /** Slot: the invitation cannot be used (the route goes to /404). */
    onInvitationMissing: (_, _params: { error: unknown }) => {},
    /** Slot: the account exists (the route sets the sign-in banner and goes to /signin). */
    onRegistered: (_, _params: { user: RegisteredPersonnel['user'] }) => {},
  },
}).createMachine({
  id: 'registerPersonnel',
  context: ({ input }) => ({
    invitationId: input.invitationId,
    invitation: null,
    verifiedPhone: null,
    error: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      description: 'Fetching the invitation behind the link.',
      invoke: {
        id: 'loadInvitation',
        src: 'loadInvitation',
        input: ({ context }) => ({ invitationId: context.invitationId }),
        onDone: {
          target: 'editing',
          actions: assign(({ event }) => ({ invitation: event.output })),
        },
        onError: {
          target: 'notFound',
          actions: {
            type: 'onInvitationMissing',
            params: ({ event }) => ({ error: event.error }),
          },
        },
      },
    },
    editing: {
      description:
        'The Registration Details form, pre-filled from the invitation; e-mail and position are fixed.',
      initial: 'verifyingPhone',
      states: {
        verifyingPhone: {
          description:
            'Get Code, then the confirmation code and Verify Code; Submit waits for the verified phone.',
          invoke: {
            id: 'phoneVerification',
            src: 'phoneVerification',
            input: { verified: null },
            onDone: {
              target: 'phoneVerified',
              actions: assign(({ event }) => ({ verifiedPhone: event.output })),
            },
          },
        },
        phoneVerified: {
          description: 'The phone is verified and locked; Submit is enabled.',
          on: {
            'form.submit': { target: '#registerPersonnel.submitting' },
          },
        },
      },
    },
    submitting: {
      description: 'Creating the account with the invitation and the verified phone.',
      entry: assign({ error: null }),
      invoke: {
        id: 'registerPersonnel',
        src: 'registerPersonnel',
        input: ({ context, event }) => {
          assertEvent(event, 'form.submit')
          const phone = context.verifiedPhone ?? { authyId: '', phone: '' }
          return toRegisterPayload(
            // The verified phone is the one registered, whatever the (locked) input shows.
            { ...event.details, phoneNumber: phone.phone },
            {
              invitationId: context.invitationId,
              email: context.invitation?.email ?? '',
              position: context.invitation?.position ?? '',
              authyId: phone.authyId,
            },
          )
        },
        onDone: {
          target: 'registered',
          actions: {
            type: 'onRegistered',
            params: ({ event }) => ({ user: event.output.user }),
          },
        },
        onError: {
          target: '#registerPersonnel.editing.phoneVerified',
          actions: assign(({ event }) => ({
            error: errorMessage(event.error, PERSONNEL_MESSAGES.generic),
          })),
        },
      },
    },
    registered: {
      description: 'The account exists; the person goes to Sign In and sees the success banner.',
      type: 'final',
    },
    notFound: {
      description:
        'The invitation cannot be used: the person sees /404 (unknown or revoked), or that it was used or has expired.',
      type: 'final',
    },
  },
})
