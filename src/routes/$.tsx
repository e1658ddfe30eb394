import { createFileRoute, redirect } from '@tanstack/react-router'

const RESET_PREFIX = '/reset='
const PERSONNEL_SIGNIN = /^\/signup\/personnel\/([^/]+)\/.*signin/

function decode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * Every path no other route matches. The public pages' route tree sends every signed-in address
 * here first: the rest of the routes is loaded and the address matched again. Then reset links written as `/reset=CODE` go to
 * `/reset?code=CODE`; a sign-in path inside a personnel invitation goes back to that invitation;
 * anything else goes to the not-found page.
 */
export const Route = createFileRoute('/$')({
  beforeLoad: async ({ location, context }) => {
    if (await context.loadAllRoutes()) throw redirect({ href: location.href, replace: true })
    const path = location.pathname
    if (path.startsWith(RESET_PREFIX)) {
      const code = decode(path.slice(RESET_PREFIX.length))
      throw redirect({ href: `/reset?code=${encodeURIComponent(code)}`, replace: true })
    }
    const personnel = PERSONNEL_SIGNIN.exec(path)
    if (personnel?.[1]) {
      throw redirect({
        to: '/signup/personnel/$id',
        params: { id: decode(personnel[1]) },
        replace: true,
      })
    }
    throw redirect({ to: '/404', replace: true })
  },
})
