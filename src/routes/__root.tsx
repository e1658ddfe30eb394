import {
  createRootRouteWithContext,
  Navigate,
  Outlet,
  useRouterState,
} from '@tanstack/react-router'
import type { Session } from '#domain/session.ts'
import { AlertBanner } from '#src/ui/alert-banner.tsx'
import { PageLoadingIndicator } from '#src/ui/page-loading.tsx'
import { PageTitle } from '#src/ui/page-title.tsx'

/**
 * What every route's `beforeLoad`/`loader` receives from the router. Declared here, beside the
 * root route, as TanStack's examples do: the router imports the route tree, never the reverse.
 */
export type RouterContext = {
  /** The signed-in user, read fresh on each navigation (tests can replace it). */
  getSession: () => Session | null
  /**
   * Gives the router the signed-in areas' routes, which the entry chunk does not hold
   * (src/app/router.tsx). True when the address must be matched again; false when every route
   * was known already.
   */
  loadAllRoutes: () => Promise<boolean>
}

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  // Every unknown path ends on the not-found page.
  notFoundComponent: () => <Navigate to="/404" replace />,
})

function RootLayout() {
  const pending = useRouterState({ select: (state) => state.status === 'pending' })
  return (
    <>
      <PageTitle />
      <PageLoadingIndicator visible={pending} />
      <AlertBanner />
      <Outlet />
    </>
  )
}
