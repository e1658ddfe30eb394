/**
 * The Personnel area's jsdom driver: the invitations machine's paths replayed through the real
 * area with user-event, the three calls answered by the test, checking after every step that the
 * actor reached the modelled state and that the screen shows it.
 */
import { act, screen } from '@testing-library/react'
import userEvent, { type UserEvent } from '@testing-library/user-event'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import type { PersonnelInvitation } from '#domain/personnel.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import type { InvitationsNotice } from '#machines/personnel/personnel-invitations.machine.ts'
import { PersonnelArea } from '#src/features/personnel/personnel-area.tsx'
import {
  expectEveryStateAndEvent,
  type PerformEach,
  replayThroughView,
} from '#tests/flows/shared/view-replay.ts'
import { flowPaths, pathTitle, type QaPath, qaFlow } from '#tests/mbt/index.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { type PersonnelInvitationsFakes, startPersonnelInvitations } from './fakes.ts'
import {
  invitationFixtures as fixtures,
  personnelInvitationsModel as model,
  type PersonnelInvitationsModelEvent,
  personnelInvitationsEvents,
  personnelInvitationsFlow,
} from './model.ts'

type Harness = PersonnelInvitationsFakes & { user: UserEvent }

const admin: StaffMember = {
  id: 5,
  practice_id: 1,
  email: 'demo@example.com',
  title: 'Dr.',
  first_name: 'Demo',
  last_name: 'Admin',
  position: 'Provider',
  access_rights: 'Admin',
  image_path: null,
}

/** The area's pending invitation: the row the model's resend and revoke act on. */
const pending: PersonnelInvitation = {
  id: fixtures.row.id,
  email: fixtures.row.email,
  title: 'Dr.',
  first_name: 'Jordan',
  last_name: 'Lee',
  position: 'Provider',
  status: 'pending',
  expires_at: '2026-06-15T00:00:00.000Z',
  created_at: '2026-06-01T00:00:00.000Z',
}

/** Starts the real machine with calls the test answers and renders the Admin's area around it. */
async function open(): Promise<Harness> {
  const fakes = startPersonnelInvitations()
  renderInRouter(
    (): ReactNode => (
      <PersonnelArea staff={[admin]} invitations={[pending]} isAdmin actorRef={fakes.actor} />
    ),
    '/personnel',
  )
  await screen.findByRole('heading', { level: 2, name: 'Invite' })
  return { ...fakes, user: userEvent.setup() }
}

const button = (name: string | RegExp) => screen.getByRole('button', { name })
const resend = () => button(`Resend invitation to ${fixtures.row.email}`)
const revoke = () => button(`Revoke invitation to ${fixtures.row.email}`)
const invite = () => button('Invite')

async function type(user: UserEvent, label: RegExp, text: string) {
  const field = screen.getByRole('textbox', { name: label })
  await user.clear(field)
  await user.type(field, text)
}

/** What the Admin does for each event, and what the fake calls answer. */
const perform: PerformEach<Harness, PersonnelInvitationsModelEvent> = {
  'invite.submit': async ({ user }, { input }) => {
    await type(user, /^Email/, input.email)
    await type(user, /^First name/, input.first_name)
    await type(user, /^Last name/, input.last_name)
    await user.click(screen.getByRole('combobox', { name: /^Position/ }))
    await user.click(await screen.findByRole('option', { name: input.position }))
    await user.click(invite())
  },
  'invitation.resend': ({ user }) => user.click(resend()),
  // Revoking asks first: the event is the confirmation in the dialog.
  'invitation.revoke': async ({ user }) => {
    await user.click(revoke())
    await user.click(await screen.findByRole('button', { name: 'Revoke invitation' }))
  },
  'notice.dismiss': ({ user }) => user.click(button('Close message')),
  'xstate.done.actor.invitePersonnel': async (h, { output }) => {
    expect(h.invitePersonnel.latest().input).toEqual(fixtures.input)
    await act(async () => h.invitePersonnel.latest().answer.resolve(output))
  },
  'xstate.error.actor.invitePersonnel': async (h, { error }) => {
    await act(async () => h.invitePersonnel.latest().answer.reject(error))
  },
  'xstate.done.actor.resendInvitation': async (h, { output }) => {
    expect(h.resendInvitation.latest().input).toEqual(fixtures.row)
    await act(async () => h.resendInvitation.latest().answer.resolve(output))
  },
  'xstate.error.actor.resendInvitation': async (h, { error }) => {
    await act(async () => h.resendInvitation.latest().answer.reject(error))
  },
  'xstate.done.actor.revokeInvitation': async (h, { output }) => {
    expect(h.revokeInvitation.latest().input).toEqual(fixtures.row)
    await act(async () => h.revokeInvitation.latest().answer.resolve(output))
  },
  'xstate.error.actor.revokeInvitation': async (h, { error }) => {
    await act(async () => h.revokeInvitation.latest().answer.reject(error))
  },
}

type Snapshot = ReturnType<Harness['actor']['getSnapshot']>

/** The message of the last action: green status or red alert, with its close button. */
function expectNotice(notice: InvitationsNotice | null) {
  const close = screen.queryByRole('button', { name: 'Close message' })
  if (!notice) {
    expect(close).toBeNull()
    return
  }
  expect(close).toBeVisible()
  const role = notice.type === 'success' ? 'status' : 'alert'
  expect(screen.getByRole(role)).toHaveTextContent(notice.message)
}

/** What the area must show in each state (keyed by the state node id). */
const expectScreen: Record<string, (snapshot: Snapshot, h: Harness) => void> = {
  'personnelInvitations.idle': (snapshot, h) => {
    expect(invite()).toBeEnabled()
    expect(invite()).not.toHaveAttribute('data-loading')
    expect(resend()).toBeEnabled()
    expect(revoke()).toBeEnabled()
    expectNotice(snapshot.context.notice)
    // A sent invitation starts a fresh form, and the route reloads its lists.
    if (snapshot.context.sentCount > 0) {
      expect(screen.getByRole('textbox', { name: /^Email/ })).toHaveValue('')
    }
    if (snapshot.context.notice?.type === 'success') expect(h.onChanged).toHaveBeenCalled()
  },
  'personnelInvitations.inviting': () => {
    expect(invite()).toHaveAttribute('data-loading')
    expect(resend()).toBeDisabled()
    expect(revoke()).toBeDisabled()
    expectNotice(null)
  },
  'personnelInvitations.resending': () => {
    expect(resend()).toHaveAttribute('data-loading')
    expect(revoke()).toBeDisabled()
    expect(invite()).toBeDisabled()
    expectNotice(null)
  },
  'personnelInvitations.revoking': () => {
    expect(revoke()).toHaveAttribute('data-loading')
    expect(resend()).toBeDisabled()
    expect(invite()).toBeDisabled()
    expectNotice(null)
  },
}

const paths = flowPaths(qaFlow(personnelInvitationsFlow))

describe('personnel invitations: paths from the machine, replayed through the Personnel area', () => {
  it.each(paths.map((p) => [pathTitle(p), p] as const))('%s', async (_, path: QaPath) => {
    const h = await replayThroughView(path, { open, model, perform, checks: expectScreen })
    h.actor.stop()
  })

  it('has a screen check for every state and an action for every event', () => {
    expectEveryStateAndEvent(model.machine, expectScreen, perform, personnelInvitationsEvents)
  })
})
