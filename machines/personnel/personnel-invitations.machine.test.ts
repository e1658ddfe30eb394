import { describe, expect, it } from 'vitest'
import { waitFor } from 'xstate'
import { startPersonnelInvitations } from '#tests/flows/personnel-invitations/fakes.ts'
import { invitationFixtures } from '#tests/flows/personnel-invitations/model.ts'

// The fixtures of the flow model (tests/flows/personnel-invitations/model.ts).
const { input, created, row } = invitationFixtures

describe('personnel invitations', () => {
  it('invites, says so, starts a fresh form and lets the route reload', async () => {
    const s = startPersonnelInvitations()
    s.actor.send({ type: 'invite.submit', input })
    expect(s.actor.getSnapshot().value).toBe('inviting')
    expect(s.invitePersonnel.latest().input).toEqual(input)
    s.invitePersonnel.latest().answer.resolve(created)
    await waitFor(s.actor, (snap) => snap.matches('idle'))
    expect(s.actor.getSnapshot().context).toMatchObject({
      notice: { type: 'success', message: 'Invitation sent to new.person@example.com.' },
      sentCount: 1,
    })
    expect(s.onChanged).toHaveBeenCalledTimes(1)
  })

  it("shows the server's message when inviting fails, and keeps the form", async () => {
    const s = startPersonnelInvitations()
    s.actor.send({ type: 'invite.submit', input })
    s.invitePersonnel
      .latest()
      .answer.reject(new Error('A person with this e-mail already has an account.'))
    await waitFor(s.actor, (snap) => snap.matches('idle'))
    expect(s.actor.getSnapshot().context).toMatchObject({
      notice: { type: 'danger', message: 'A person with this e-mail already has an account.' },
      sentCount: 0,
    })
    expect(s.onChanged).not.toHaveBeenCalled()
  })

  it('resends a pending invitation, showing which row is busy', async () => {
    const s = startPersonnelInvitations()
    s.actor.send({ type: 'invitation.resend', invitation: row })
    expect(s.actor.getSnapshot().value).toBe('resending')
    expect(s.actor.getSnapshot().context.working).toEqual(row)
    expect(s.resendInvitation.latest().input).toEqual(row)
    s.resendInvitation.latest().answer.resolve(undefined)
    await waitFor(s.actor, (snap) => snap.matches('idle'))
    expect(s.actor.getSnapshot().context).toMatchObject({
      notice: { type: 'success', message: 'Invitation sent again to jordan.lee@example.com.' },
      working: null,
    })
    expect(s.onChanged).toHaveBeenCalledTimes(1)
  })

  it('revokes a pending invitation', async () => {
    const s = startPersonnelInvitations()
    s.actor.send({ type: 'invitation.revoke', invitation: row })
    expect(s.actor.getSnapshot().value).toBe('revoking')
    s.revokeInvitation.latest().answer.resolve(undefined)
    await waitFor(s.actor, (snap) => snap.matches('idle'))
    expect(s.actor.getSnapshot().context.notice).toEqual({
      type: 'success',
      message: 'Invitation to jordan.lee@example.com revoked.',
    })
    expect(s.onChanged).toHaveBeenCalledTimes(1)
  })

  it.each([
    ['resend', 'invitation.resend', 'resendInvitation'],
    ['revoke', 'invitation.revoke', 'revokeInvitation'],
  ] as const)('a failed %s says why and frees the row', async (_, type, actorName) => {
    const s = startPersonnelInvitations()
    s.actor.send({ type, invitation: row })
    s[actorName].latest().answer.reject({ status: 502 })
    await waitFor(s.actor, (snap) => snap.matches('idle'))
    expect(s.actor.getSnapshot().context).toMatchObject({
      notice: { type: 'danger', message: 'Ooops, something going wrong please try again' },
      working: null,
    })
  })

  it('runs one action at a time', () => {
    const s = startPersonnelInvitations()
    s.actor.send({ type: 'invite.submit', input })
    s.actor.send({ type: 'invitation.revoke', invitation: row })
    s.actor.send({ type: 'invite.submit', input })
    expect(s.actor.getSnapshot().value).toBe('inviting')
    expect(s.invitePersonnel.calls).toHaveLength(1)
    expect(s.revokeInvitation.calls).toHaveLength(0)
  })

  it('dismisses the message', async () => {
    const s = startPersonnelInvitations()
    s.actor.send({ type: 'invite.submit', input })
    s.invitePersonnel.latest().answer.reject(new Error('No.'))
    await waitFor(s.actor, (snap) => snap.matches('idle'))
    s.actor.send({ type: 'notice.dismiss' })
    expect(s.actor.getSnapshot().context.notice).toBeNull()
  })
})
