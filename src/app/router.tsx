import { createRouter, type RouterHistory } from '@tanstack/react-router'
import { noteNavigation } from '#src/lib/alerts.ts'
import { readSession } from '#src/lib/session.ts'
import type { RouterContext } from '#src/routes/__root.tsx'
import { routeTree } from '#src/routeTree.gen.ts'
import { PendingPage } from '#src/ui/page-loading.tsx'
import { RouteError } from './route-error.tsx'

/** Options of {@link createAppRouter}; tests pass a memory history. */
export type AppRouterOptions = {
  history?: RouterHistory
  context?: Partial<RouterContext>
  /** Off for the build's prerender, which has no browser history to restore. */
  scrollRestoration?: boolean
}

/**
 * The application router: the generated route tree, scroll to top after each navigation (and
 * restored on back/forward), a pending view for slow loaders, and the alert store told about each
 * finished navigation so banners clear.
 */
export function createAppRouter({
  history,
  context,
  scrollRestoration = true,
}: AppRouterOptions = {}) {
  const router = createRouter({
    routeTree,
    ...(history ? { history } : {}),
    context: { getSession: readSession, ...context },
    scrollRestoration,
    defaultPreload: 'intent',
    defaultPendingComponent: PendingPage,
    defaultErrorComponent: RouteError,
  })
  router.subscribe('onResolved', (event) => {
    if (event.hrefChanged) noteNavigation()
  })
  return router
}

/** The router type, registered for type-safe links and navigation. */
export type AppRouter = ReturnType<typeof createAppRouter>

declare module '@tanstack/react-router' {
  interface Register {
    router: AppRouter
  }
}
