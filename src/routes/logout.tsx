import { createFileRoute, redirect } from '@tanstack/react-router'
import { clearSession } from '#src/lib/session.ts'

// Signing out forgets the current user in both storages, then shows sign-in (spec section 4).
export const Route = createFileRoute('/logout')({
  beforeLoad: ({ preload }) => {
    // Hovering a Logout link preloads this route: that must not sign anyone out.
    if (preload) return
    clearSession()
    throw redirect({ to: '/signin', replace: true })
  },
})
