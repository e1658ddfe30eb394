import { type AnyRouter, createRouter, type RouterHistory } from '@tanstack/react-router'
import { noteNavigation } from '#src/lib/alerts.ts'
import { readSession } from '#src/lib/session.ts'
import { routeTree as publicRouteTree } from '#src/public-route-tree.gen.ts'
import type { RouterContext } from '#src/routes/__root.tsx'
import type { routeTree as wholeRouteTree } from '#src/routeTree.gen.ts'
import { RouteError } from './route-error.tsx'

/** Options of {@link createAppRouter}; tests pass a memory history. */
export type AppRouterOptions = {
  history?: RouterHistory
  context?: Partial<RouterContext>
  /** Off for the build's prerender, which has no browser history to restore. */
  scrollRestoration?: boolean
}

/** The signed-in areas' layout route (src/routes/_shell.tsx), absent from the public tree. */
export const SHELL_ROUTE_ID = '/_shell'

type WholeRouteTree = typeof wholeRouteTree

/**
 * The application router: scroll to top after each navigation (and restored on back/forward),
 * preloading on intent, an error view, and the alert store told about each finished navigation
 * so banners clear.
 *
 * It starts with the public pages' route tree (`src/public-route-tree.gen.ts`: sign-in, sign-up,
 * the legal pages and the catch-all), which is all the entry chunk holds, so a signed-in page
 * added to the app adds nothing to what the sign-in page downloads. The whole tree
 * (`src/routeTree.gen.ts`, the signed-in areas' address checks with it, and their pending view
 * for slow loaders: src/app/signed-in-area.ts) is a chunk of its own:
 * the catch-all route loads it for an address the public tree does not know
 * ({@link RouterContext.loadAllRoutes}) and the address is matched again. Both trees are
 * generated from `src/routes/` (vite.config.ts) and share the same route objects, so the router's
 * type is the whole tree's: a link to `/dashboard` is checked as before.
 */
export function createAppRouter({
  history,
  context,
  scrollRestoration = true,
}: AppRouterOptions = {}) {
  // The catch-all route asks through the context for the router that is being created here.
  let created: AnyRouter | undefined
  const router = createRouter({
    // The public tree is the whole tree's root with fewer children, until the rest arrives.
    routeTree: publicRouteTree as unknown as WholeRouteTree,
    ...(history ? { history } : {}),
    context: {
      getSession: readSession,
      loadAllRoutes: async () => (created ? loadAllRoutes(created) : false),
      ...context,
    },
    scrollRestoration,
    defaultPreload: 'intent',
    defaultErrorComponent: RouteError,
  })
  created = router
  router.subscribe('onResolved', (event) => {
    if (event.hrefChanged) noteNavigation()
  })
  return router
}

/** The router type, registered for type-safe links and navigation. */
export type AppRouter = ReturnType<typeof createAppRouter>

/**
 * Gives `router` every route of the app: imports the whole route tree (which puts the signed-in
 * areas under the same root route the public tree uses), has the router index it again and
 * shows their pending view while a page's data is on its way. True when the router knew only
 * the public pages before, so the current address must be matched again; false when it already
 * knew them all.
 */
export async function loadAllRoutes(
  router: Pick<AnyRouter, 'routesById' | 'buildRouteTree' | 'setRoutes' | 'update'>,
): Promise<boolean> {
  const { PendingPage } = await import('./signed-in-area.ts')
  router.update({ defaultPendingComponent: PendingPage })
  if (router.routesById[SHELL_ROUTE_ID]) return false
  // The root route object is the same, so `router.update({ routeTree })` would see no change.
  router.setRoutes(router.buildRouteTree())
  return true
}

declare module '@tanstack/react-router' {
  interface Register {
    router: AppRouter
  }
}
