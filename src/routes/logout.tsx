import { createFileRoute, redirect } from '@tanstack/react-router'
import { logout } from '#src/api/auth.ts'
import { clearSession, readSession } from '#src/lib/session.ts'

// Signing out forgets the current user in both storages, then shows sign-in (spec section 4). The
// server is told too, so the token stops working there (issue 7); that call is best effort and
// never holds the person on this page.
export const Route = createFileRoute('/logout')({
  beforeLoad: ({ preload }) => {
    // Hovering a Logout link preloads this route: that must not sign anyone out.
    if (preload) return
    const jwt = readSession()?.jwt
    clearSession()
    if (jwt) void logout(jwt).catch(() => {})
    throw redirect({ to: '/signin', replace: true })
  },
})
