/**
 * The Personnel area's model and flow (the Admin invites, resends and revokes): the fixture
 * events the real machine is walked with, what tells its states apart, and a person's words. The
 * view test (`view.test.tsx`) replays its paths through the Personnel area.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import type { InvitePersonnelInput, PersonnelInvitation } from '#domain/personnel.ts'
import {
  type InvitationRef,
  type PersonnelInvitationsEvent,
  personnelInvitationsMachine,
} from '#machines/personnel/personnel-invitations.machine.ts'
import {
  type CallAnswers,
  type FlowSpec,
  type Model,
  nextAnswerFails,
  type QaPath,
  type QaStep,
  type StepPlan,
} from '#tests/mbt/index.ts'

/** What the Admin types and which row they act on, and what the fake server answers. */
export const invitationFixtures = {
  input: {
    email: 'new.person@example.com',
    first_name: 'New',
    last_name: 'Person',
    position: 'Staff',
    title: null,
  } satisfies InvitePersonnelInput,
  created: {
    id: 'inv-9',
    email: 'new.person@example.com',
    title: null,
    first_name: 'New',
    last_name: 'Person',
    position: 'Staff',
    status: 'pending',
    expires_at: '2026-06-15T00:00:00.000Z',
    created_at: '2026-06-01T00:00:00.000Z',
  } satisfies PersonnelInvitation,
  /** A pending invitation listed in the area. */
  row: { id: 'inv-1', email: 'jordan.lee@example.com' } satisfies InvitationRef,
  alreadyInvited: 'This person already has a pending invitation. Send it again instead.',
  /** The server's answer to a resend of an invitation revoked meanwhile. */
  revoked: 'This invitation was revoked.',
  /** The server's answer to a revoke of an invitation used meanwhile. */
  used: 'This invitation was already used.',
} as const

/** Events of the graph: the Admin's, and the three calls' answers. */
export type PersonnelInvitationsModelEvent =
  | PersonnelInvitationsEvent
  | CallAnswers<'invitePersonnel', PersonnelInvitation>
  | CallAnswers<'resendInvitation', unknown>
  | CallAnswers<'revokeInvitation', unknown>

/** Every event with fixture payloads. */
export const personnelInvitationsEvents: PersonnelInvitationsModelEvent[] = [
  { type: 'invite.submit', input: invitationFixtures.input },
  { type: 'invitation.resend', invitation: invitationFixtures.row },
  { type: 'invitation.revoke', invitation: invitationFixtures.row },
  { type: 'notice.dismiss' },
  { type: 'xstate.done.actor.invitePersonnel', output: invitationFixtures.created },
  {
    type: 'xstate.error.actor.invitePersonnel',
    error: new Error(invitationFixtures.alreadyInvited),
  },
  { type: 'xstate.done.actor.resendInvitation', output: { ok: true } },
  { type: 'xstate.error.actor.resendInvitation', error: new Error(invitationFixtures.revoked) },
  { type: 'xstate.done.actor.revokeInvitation', output: { ok: true } },
  { type: 'xstate.error.actor.revokeInvitation', error: new Error(invitationFixtures.used) },
]

/** The state and the message the area shows (the sent counter only renews the form). */
export function invitationsSignature(snapshot: AnyMachineSnapshot): string {
  const { notice, working } = snapshot.context
  return JSON.stringify({ value: snapshot.value, notice, working: working?.id ?? null })
}

const states: Record<string, string> = {
  'personnelInvitations.idle':
    'You see: the Invite form (Email, First name, Last name, Title, Position, Invite) and the people with Resend and Revoke beside each pending invitation',
  'personnelInvitations.inviting': 'You see: Invite is busy; Resend and Revoke are disabled',
  'personnelInvitations.resending':
    "You see: the row's Resend is busy; Invite and the other buttons are disabled",
  'personnelInvitations.revoking':
    "You see: the row's Revoke is busy; Invite and the other buttons are disabled",
}

const eventWords: Record<PersonnelInvitationsModelEvent['type'], string> = {
  'invite.submit': `Type ${invitationFixtures.input.email}, ${invitationFixtures.input.first_name} ${invitationFixtures.input.last_name}, Position ${invitationFixtures.input.position}, click Invite`,
  'invitation.resend': `Click Resend beside ${invitationFixtures.row.email}`,
  'invitation.revoke': `Click Revoke beside ${invitationFixtures.row.email}`,
  'notice.dismiss': 'Close the message',
  'xstate.done.actor.invitePersonnel': `The server creates the invitation: you see "Invitation sent to ${invitationFixtures.input.email}."`,
  'xstate.error.actor.invitePersonnel': `The server refuses: you see "${invitationFixtures.alreadyInvited}"`,
  'xstate.done.actor.resendInvitation': `The server sends it again: you see "Invitation sent again to ${invitationFixtures.row.email}."`,
  'xstate.error.actor.resendInvitation': `The invitation was revoked meanwhile: you see "${invitationFixtures.revoked}"`,
  'xstate.done.actor.revokeInvitation': `The server revokes it: you see "Invitation to ${invitationFixtures.row.email} revoked."`,
  'xstate.error.actor.revokeInvitation': `The invitation was used meanwhile: you see "${invitationFixtures.used}"`,
}

/** The Personnel area's model. */
export const personnelInvitationsModel: Model = {
  name: 'personnelInvitations',
  title: 'Personnel invitations',
  source: {
    file: 'machines/personnel/personnel-invitations.machine.ts',
    name: 'personnelInvitationsMachine',
    doc: 'personnel-invitations',
  },
  machine: personnelInvitationsMachine,
  events: personnelInvitationsEvents,
  scenarios: [{ name: 'Open Personnel as the Admin', input: undefined }],
  signature: invitationsSignature,
  // The close button shows on a message only.
  allows: (snapshot, event) => event.type !== 'notice.dismiss' || snapshot.context.notice !== null,
  states,
  describeEvent: (event: EventObject) =>
    eventWords[event.type as PersonnelInvitationsModelEvent['type']] ?? '',
}

/** What the running product needs for a step besides the model's words. */
function step(path: QaPath, i: number): StepPlan {
  const { event } = path.steps[i] as QaStep
  if (event.type === 'invite.submit' && nextAnswerFails(path, i, 'invitePersonnel')) {
    return {
      text: 'Type the e-mail of the pending invitation listed below, a first and last name, Position Staff, click Invite',
    }
  }
  if (event.type === 'xstate.error.actor.resendInvitation') {
    return {
      note: "Meanwhile another Admin revoked the invitation: the replay revokes it through the API while Resend's request is held.",
    }
  }
  if (event.type === 'xstate.error.actor.revokeInvitation') {
    return {
      intercepted:
        'an invitation used while its Revoke is on the way (the person registered meanwhile) cannot be arranged quickly with the real server; the revoke request gets the server’s answer for it (409, "This invitation was already used.").',
    }
  }
  return {}
}

/** The Personnel area flow. */
export const personnelInvitationsFlow: FlowSpec = {
  id: 'personnel-invitations',
  title: 'Personnel invitations',
  intro:
    'The Personnel area at /personnel as the Admin sees it: invite a person by e-mail, send a pending invitation again, revoke it.',
  viewTest: 'tests/flows/personnel-invitations/view.test.tsx',
  browser: true,
  sections: [
    {
      key: 'personnelInvitations',
      model: personnelInvitationsModel,
      title: 'Personnel invitations',
      intro: 'Paths of the invitations machine: each action, its success and its failure.',
      host: () => 'local',
      start: () =>
        'As the demo Admin (demo@example.com / DemoPass123), invite Dr. Jordan Lee (Provider) with an e-mail that has no account yet, then open Personnel: Resend and Revoke act on that invitation. The replay signs in and invites through the API.',
      step,
    },
  ],
}
