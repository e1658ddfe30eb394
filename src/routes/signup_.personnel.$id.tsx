import { createFileRoute } from '@tanstack/react-router'
import { useActorRef } from '@xstate/react'
import { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import { registerPersonnelActors } from '#src/features/personnel/personnel.actors.ts'
import { markPersonnelSignedUp } from '#src/features/personnel/personnel-storage.ts'
import { RegisterPersonnelView } from '#src/features/personnel/register-personnel-view.tsx'

/**
 * `signup/personnel/{id}`: registration by invitation (spec section 2). An invitation that cannot
 * be loaded goes to /404; a finished registration goes to /signin, which shows the success banner.
 */
export const Route = createFileRoute('/signup_/personnel/$id')({
  component: RegistrationRoute,
})

function RegistrationRoute() {
  const { id } = Route.useParams()
  // A new link is a new registration: the keyed component starts a fresh actor.
  return <Registration key={id} invitationId={id} />
}

function Registration({ invitationId }: { invitationId: string }) {
  const navigate = Route.useNavigate()
  const actorRef = useActorRef(
    registerPersonnelMachine.provide({
      actors: registerPersonnelActors,
      actions: {
        onInvitationMissing: () => {
          void navigate({ to: '/404', replace: true })
        },
        onRegistered: ({ context }) => {
          markPersonnelSignedUp(context.invitation?.email ?? '')
          void navigate({ to: '/signin' })
        },
      },
    }),
    { input: { invitationId } },
  )
  return <RegisterPersonnelView actorRef={actorRef} />
}
