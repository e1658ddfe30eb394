import { MantineProvider } from '@mantine/core'
import {
  createMemoryHistory,
  createRootRoute,
  createRouter,
  RouterProvider,
} from '@tanstack/react-router'
import { type RenderOptions, render } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ReactElement, ReactNode } from 'react'
import type { Session } from '#domain/session.ts'
import { createAppRouter } from '#src/app/router.tsx'
import { cssVariablesResolver, theme } from '#src/app/theme.ts'
import { clearAlert } from '#src/lib/alerts.ts'
import { UserFacingError } from '#src/lib/load-data.ts'
import { clearSession, writeSession } from '#src/lib/session.ts'

function Providers({ children }: { children: ReactNode }) {
  return (
    <MantineProvider env="test" theme={theme} cssVariablesResolver={cssVariablesResolver}>
      {children}
    </MantineProvider>
  )
}

/**
 * Renders a view inside the app's Mantine theme in test mode (no transitions or portals, so
 * menus and selects appear in place). Returns Testing Library's result plus a user-event `user`.
 */
export function renderWithProviders(
  ui: ReactElement,
  options: Omit<RenderOptions, 'wrapper'> = {},
) {
  const user = userEvent.setup()
  return { user, ...render(ui, { wrapper: Providers, ...options }) }
}

/**
 * Renders one view as the only route of a memory router at `url` (a view with links needs a
 * router), inside the providers: how the flows' view tests show a screen around their actor.
 */
export function renderInRouter(view: () => ReactNode, url: string) {
  const router = createRouter({
    routeTree: createRootRoute({ component: view }),
    history: createMemoryHistory({ initialEntries: [url] }),
  })
  return renderWithProviders(<RouterProvider router={router as never} />)
}

/**
 * React reports every error an error boundary caught. A route whose loader failed with a message
 * for the user shows it in its error view: that is expected, not a bug. Anything else is still
 * reported (and fails the test through the throwing console.error of the setup file).
 */
function reportUnexpected(error: unknown): void {
  if (error instanceof UserFacingError) return
  console.error(error)
}

/** Options of {@link renderRoute}. */
export type RenderRouteOptions = {
  /** Stored as the current user before the app starts; without it the visitor is signed out. */
  session?: Session
  /** Store the session in localStorage (Remember me) instead of sessionStorage. */
  remember?: boolean
}

/**
 * Starts the real app (the real route tree and router options) at `path` in memory history. The
 * stored session is set from `options.session` (or cleared) and any alert removed first. Await
 * `screen.findBy…` or `waitFor` for the page; `router.state.location` tells where the app went.
 */
export function renderRoute(path: string, { session, remember = false }: RenderRouteOptions = {}) {
  clearSession()
  clearAlert()
  if (session) writeSession(session, remember)
  const history = createMemoryHistory({ initialEntries: [path] })
  const router = createAppRouter({ history })
  const result = renderWithProviders(<RouterProvider router={router} />, {
    onCaughtError: reportUnexpected,
  })
  return { ...result, router, history }
}
