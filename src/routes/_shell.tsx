import { createFileRoute, Navigate, Outlet, redirect, useNavigate } from '@tanstack/react-router'
import { useEffect } from 'react'
import { IdleLogoff } from '#src/features/idle-logoff/idle-logoff.tsx'
import { ShellLayout } from '#src/features/shell/shell-layout.tsx'
import { showAlert } from '#src/lib/alerts.ts'
import { env } from '#src/lib/env.ts'
import { idleSignOutMessage } from '#src/lib/messages.ts'
import { useSession } from '#src/lib/session.ts'

/**
 * The signed-in areas. The guard checks that a current user is stored and, as a
 * deliberate fix of the spec's guard that let navigation continue, redirects to /signin when not.
 */
export const Route = createFileRoute('/_shell')({
  beforeLoad: ({ context }) => {
    const session = context.getSession()
    if (!session) throw redirect({ to: '/signin' })
    return { session }
  },
  component: ShellRoute,
})

function ShellRoute() {
  // Read live rather than the guard's copy so a sign-out in another tab takes effect here too.
  const session = useSession()
  const navigate = useNavigate()
  // The practice's logo and name as they are now, not as they were at sign-in: a colleague may
  // have uploaded a new logo since. Once per page load; the header follows the session.
  useEffect(() => {
    void import('#src/api/practice-settings.ts')
      .then((api) => api.refreshSessionPractice())
      .catch(() => undefined)
  }, [])
  if (!session) return <Navigate to="/signin" />
  return (
    <ShellLayout session={session}>
      {/* HIPAA automatic logoff: /logout tells the server and forgets the user. */}
      <IdleLogoff
        onTimeout={() => {
          // The sign-in page says why the person is there.
          showAlert({
            type: 'danger',
            message: idleSignOutMessage(env.VITE_IDLE_TIMEOUT_MINUTES),
            persist: true,
          })
          void navigate({ to: '/logout', replace: true })
        }}
      />
      <Outlet />
    </ShellLayout>
  )
}
