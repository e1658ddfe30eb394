import { createFileRoute } from '@tanstack/react-router'
import { useActorRef } from '@xstate/react'
import { useState } from 'react'
import { InvitationClosedError } from '#domain/personnel.ts'
import { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import { registerPersonnelActors } from '#src/features/personnel/personnel.actors.ts'
import { markPersonnelSignedUp } from '#src/features/personnel/personnel-storage.ts'
import {
  ClosedInvitationView,
  RegisterPersonnelView,
} from '#src/features/personnel/register-personnel-view.tsx'

/**
 * `signup/personnel/{id}`: registration by invitation. A used or expired
 * invitation says so; one that cannot be loaded otherwise goes to /404; a finished
 * registration goes to /signin, which shows the success banner.
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
  // A used or expired invitation is explained here; an unknown or revoked one is /404.
  const [closed, setClosed] = useState<InvitationClosedError | null>(null)
  const actorRef = useActorRef(
    registerPersonnelMachine.provide({
      actors: registerPersonnelActors,
      actions: {
        onInvitationMissing: (_, { error }) => {
          if (error instanceof InvitationClosedError) setClosed(error)
          else void navigate({ to: '/404', replace: true })
        },
        onRegistered: ({ context }) => {
          markPersonnelSignedUp(context.invitation?.email ?? '')
          void navigate({ to: '/signin' })
        },
      },
    }),
    { input: { invitationId } },
  )
  if (closed) return <ClosedInvitationView invitation={closed} />
  return <RegisterPersonnelView actorRef={actorRef} />
}
