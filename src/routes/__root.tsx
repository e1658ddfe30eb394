import {
  createRootRouteWithContext,
  Navigate,
  Outlet,
  useRouterState,
} from '@tanstack/react-router'
import type { RouterContext } from '#src/app/router.tsx'
import { AlertBanner } from '#src/ui/alert-banner.tsx'
import { PageLoadingIndicator } from '#src/ui/page-loading.tsx'

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  // Every unknown path ends on the not-found page (spec section 2).
  notFoundComponent: () => <Navigate to="/404" replace />,
})

function RootLayout() {
  const pending = useRouterState({ select: (state) => state.status === 'pending' })
  return (
    <>
      <PageLoadingIndicator visible={pending} />
      <AlertBanner />
      <Outlet />
    </>
  )
}
