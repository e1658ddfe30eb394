import { createFileRoute, redirect } from '@tanstack/react-router'
import { clearSession, readSession } from '#src/lib/session.ts'

// Signing out forgets the current user in both storages, then shows sign-in. The
// server is told too, so the token stops working there; that call is best effort and
// never holds the person on this page.
export const Route = createFileRoute('/logout')({
  beforeLoad: ({ preload }) => {
    // Hovering a Logout link preloads this route: that must not sign anyone out.
    if (preload) return
    const jwt = readSession()?.jwt
    clearSession()
    // Imported on use: the route's beforeLoad sits in the entry chunk, the API client need not.
    if (jwt) {
      void import('#src/api/auth.ts').then(({ logout }) => logout(jwt)).catch(() => {})
    }
    throw redirect({ to: '/signin', replace: true })
  },
})
