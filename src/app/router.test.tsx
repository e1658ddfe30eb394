import { createMemoryHistory } from '@tanstack/react-router'
import { describe, expect, it, vi } from 'vitest'
import type { Session } from '#domain/session.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { createAppRouter, SHELL_ROUTE_ID } from './router.tsx'

/** A router at `path`, as the entry chunk creates it (signed out unless `session` is given). */
function routerAt(path: string, session: Session | null = null) {
  return createAppRouter({
    history: createMemoryHistory({ initialEntries: [path] }),
    context: { getSession: () => session },
    scrollRestoration: false,
  })
}

// One file, one module graph: nothing here imports the whole route tree before the router does.
describe('the router', () => {
  it('starts with the public pages only, and learns the signed-in areas at their first address', async () => {
    const router = routerAt('/signin')
    await router.load()
    expect(router.state.location.pathname).toBe('/signin')
    expect(router.routesById[SHELL_ROUTE_ID]).toBeUndefined()
    expect(router.routesById['/_shell/dashboard']).toBeUndefined()

    // /dashboard is not in the public tree: the catch-all brings the rest and matches it again,
    // so the shell's own guard sends a signed-out visitor to sign in (not to the not-found page).
    await router.navigate({ to: '/dashboard', search: {} })
    expect(router.routesById['/_shell/dashboard']).toBeDefined()
    expect(router.state.location.pathname).toBe('/signin')
  })

  it('matches a signed-in address again as it was given: path, search and hash', async () => {
    // The page's data is not what this test is about: its requests are answered 503.
    vi.stubGlobal('fetch', async () => new Response(null, { status: 503 }))
    const router = routerAt('/promotions?status=live#top', demoSession)
    await router.load()
    expect(router.state.location.pathname).toBe('/promotions')
    expect(router.state.location.search).toMatchObject({ status: 'live' })
    expect(router.state.location.hash).toBe('top')
    expect(router.state.matches.map((match) => match.routeId)).toContain('/_shell/promotions/')
  })

  it('still sends an unknown address to the not-found page and a written-out reset link to /reset', async () => {
    const unknown = routerAt('/nowhere/at/all')
    await unknown.load()
    expect(unknown.state.location.pathname).toBe('/404')
    const reset = routerAt('/reset=ABC123')
    await reset.load()
    expect(reset.state.location.pathname).toBe('/reset')
    expect(reset.state.location.search).toEqual({ code: 'ABC123' })
  })
})
