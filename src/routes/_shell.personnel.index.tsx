import { createFileRoute, useRouter } from '@tanstack/react-router'
import { useActorRef } from '@xstate/react'
import type { PersonnelInvitation } from '#domain/personnel.ts'
import { personnelInvitationsMachine } from '#machines/personnel/personnel-invitations.machine.ts'
import { listInvitations } from '#src/api/personnel.ts'
import { setMemberActive, setMemberRole } from '#src/api/self-service.ts'
import { listUsers } from '#src/api/users.ts'
import { personnelInvitationsActors } from '#src/features/personnel/personnel.actors.ts'
import { PersonnelArea, type SaveMemberChange } from '#src/features/personnel/personnel-area.tsx'
import { loadData, UserFacingError } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'

/**
 * The invitations, or why they could not be read: the staff list stays useful when only the
 * invitations fail.
 */
async function loadInvitations(): Promise<{
  invitations: PersonnelInvitation[]
  invitationsError: string | null
}> {
  try {
    return { invitations: await loadData(listInvitations), invitationsError: null }
  } catch (error) {
    if (error instanceof UserFacingError)
      return { invitations: [], invitationsError: error.message }
    throw error
  }
}

export const Route = createFileRoute('/_shell/personnel/')({
  loader: async () => {
    const [staff, invitations] = await Promise.all([loadData(listUsers), loadInvitations()])
    return { staff, ...invitations }
  },
  component: PersonnelPage,
})

function PersonnelPage() {
  const { staff, invitations, invitationsError } = Route.useLoaderData()
  const isAdmin = Route.useRouteContext({
    select: (context) => context.session.user.access_rights === 'Admin',
  })
  const ownId = Route.useRouteContext({ select: (context) => context.session.user.id })
  const router = useRouter()
  const actorRef = useActorRef(
    personnelInvitationsMachine.provide({
      actors: personnelInvitationsActors,
      actions: {
        onChanged: () => {
          void router.invalidate()
        },
      },
    }),
  )
  const action = useAction()
  const onMemberChange: SaveMemberChange = (change) =>
    action.run(() =>
      change.kind === 'role'
        ? setMemberRole(change.member.id, change.role)
        : setMemberActive(change.member.id, change.kind === 'reactivate'),
    )
  return (
    <AreaPage
      title="Personnel"
      description={
        isAdmin
          ? 'The staff of your practice and the people you invited.'
          : 'The staff of your practice.'
      }
    >
      <PersonnelArea
        staff={staff}
        invitations={invitations}
        invitationsError={invitationsError}
        isAdmin={isAdmin}
        actorRef={actorRef}
        onMemberChange={isAdmin ? onMemberChange : undefined}
        ownId={ownId}
      />
    </AreaPage>
  )
}
