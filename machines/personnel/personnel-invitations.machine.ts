import { assertEvent, assign, fromPromise, setup } from 'xstate'
import {
  type InvitePersonnelInput,
  PERSONNEL_MESSAGES,
  type PersonnelInvitation,
} from '#domain/personnel.ts'
import { errorMessage } from '#machines/phone-verification/error-message.ts'

/** An invitation a row's button acts on. */
export type InvitationRef = { id: string; email: string }

/** The message the Personnel area shows after an action. */
export type InvitationsNotice = { type: 'success' | 'danger'; message: string }

export type PersonnelInvitationsContext = {
  notice: InvitationsNotice | null
  /** The invitation a resend or revoke is working on, for that row's loading state. */
  working: InvitationRef | null
  /** How many invitations were sent from this page; the view starts a fresh form on each. */
  sentCount: number
}

export type PersonnelInvitationsEvent =
  | { type: 'invite.submit'; input: InvitePersonnelInput }
  | { type: 'invitation.resend'; invitation: InvitationRef }
  | { type: 'invitation.revoke'; invitation: InvitationRef }
  | { type: 'notice.dismiss' }

const invitationsSetup = setup({
  types: {
    context: {} as PersonnelInvitationsContext,
    events: {} as PersonnelInvitationsEvent,
  },
  actors: {
    invitePersonnel: fromPromise<PersonnelInvitation, InvitePersonnelInput>(() =>
      Promise.reject(new Error('invitePersonnel: not provided')),
    ),
    resendInvitation: fromPromise<unknown, InvitationRef>(() =>
      Promise.reject(new Error('resendInvitation: not provided')),
    ),
    revokeInvitation: fromPromise<unknown, InvitationRef>(() =>
      Promise.reject(new Error('revokeInvitation: not provided')),
    ),
  },
  actions: {
    /** Slot: the invitations changed (the route reloads its data). */
    onChanged: () => {},
    assignFailure: assign((_, params: { error: unknown }) => ({
      notice: {
        type: 'danger' as const,
        message: errorMessage(params.error, PERSONNEL_MESSAGES.generic),
      },
      working: null,
    })),
  },
})

/**
 * A row's action on a pending invitation (`resendInvitation` or `revokeInvitation`): the call
 * with the row it works on, then the success message `done` words from the invitation's e-mail,
 * or the server's refusal.
 */
const rowAction = (
  description: string,
  call: 'resendInvitation' | 'revokeInvitation',
  done: (email: string) => string,
) =>
  invitationsSetup.createStateConfig({
    description,
    entry: assign({ notice: null }),
    invoke: {
      id: call,
      src: call,
      input: ({ context }) => context.working as InvitationRef,
      onDone: {
        target: 'idle',
        actions: [
          assign(({ context }) => ({
            notice: { type: 'success', message: done(context.working?.email ?? '') },
            working: null,
          })),
          'onChanged',
        ],
      },
      onError: {
        target: 'idle',
        actions: { type: 'assignFailure', params: ({ event }) => ({ error: event.error }) },
      },
    },
  })

/**
 * The Admin's actions in the Personnel area: invite a person by e-mail
 * (`invitePersonnel`), send a pending invitation again (`resendInvitation`) or revoke it
 * (`revokeInvitation`). One action runs at a time; each ends with a success or failure message
 * ('Invitation sent to …' or the server's message). After a success the `onChanged` slot lets the
 * route reload the lists. Reading the lists is the route loader's job, not this machine's.
 */
export const personnelInvitationsMachine = invitationsSetup.createMachine({
  id: 'personnelInvitations',
  context: { notice: null, working: null, sentCount: 0 },
  initial: 'idle',
  states: {
    idle: {
      description: 'The invite form and the row buttons are available.',
      on: {
        'invite.submit': 'inviting',
        'invitation.resend': {
          target: 'resending',
          actions: assign(({ event }) => ({ working: event.invitation })),
        },
        'invitation.revoke': {
          target: 'revoking',
          actions: assign(({ event }) => ({ working: event.invitation })),
        },
        'notice.dismiss': { actions: assign({ notice: null }) },
      },
    },
    inviting: {
      description: 'Creating the invitation and e-mailing its link.',
      entry: assign({ notice: null }),
      invoke: {
        id: 'invitePersonnel',
        src: 'invitePersonnel',
        input: ({ event }) => {
          assertEvent(event, 'invite.submit')
          return event.input
        },
        onDone: {
          target: 'idle',
          actions: [
            assign(({ context, event }) => ({
              notice: { type: 'success', message: PERSONNEL_MESSAGES.invited(event.output.email) },
              sentCount: context.sentCount + 1,
            })),
            'onChanged',
          ],
        },
        onError: {
          target: 'idle',
          actions: { type: 'assignFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    resending: rowAction(
      'E-mailing a pending invitation again.',
      'resendInvitation',
      PERSONNEL_MESSAGES.resent,
    ),
    revoking: rowAction(
      'Revoking a pending invitation; its link stops working.',
      'revokeInvitation',
      PERSONNEL_MESSAGES.revoked,
    ),
  },
})
