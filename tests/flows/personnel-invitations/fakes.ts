import { vi } from 'vitest'
import { createActor } from 'xstate'
import type { InvitePersonnelInput, PersonnelInvitation } from '#domain/personnel.ts'
import {
  type InvitationRef,
  personnelInvitationsMachine,
} from '#machines/personnel/personnel-invitations.machine.ts'
import { controlled } from '#tests/support/deferred.ts'

/**
 * Starts the real invitations machine with its three calls faked (the test answers each) and a spy
 * for `onChanged`. The machine's own tests and the view's replay share it.
 */
export function startPersonnelInvitations() {
  const invitePersonnel = controlled<PersonnelInvitation, InvitePersonnelInput>()
  const resendInvitation = controlled<unknown, InvitationRef>()
  const revokeInvitation = controlled<unknown, InvitationRef>()
  const onChanged = vi.fn()
  const actor = createActor(
    personnelInvitationsMachine.provide({
      actors: {
        invitePersonnel: invitePersonnel.logic,
        resendInvitation: resendInvitation.logic,
        revokeInvitation: revokeInvitation.logic,
      },
      actions: { onChanged: () => onChanged() },
    }),
  ).start()
  return { actor, invitePersonnel, resendInvitation, revokeInvitation, onChanged }
}

/** The fake calls and spy of {@link startPersonnelInvitations}, with its actor. */
export type PersonnelInvitationsFakes = ReturnType<typeof startPersonnelInvitations>
