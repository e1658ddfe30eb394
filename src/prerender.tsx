/**
 * The build's prerender entry (scripts/lib/prerender.ts): renders a page of the web app to HTML
 * the way the browser renders it for a first-time visitor, so that the browser can hydrate it.
 * It is bundled for Node with the browser's export conditions (the router must render its
 * browser tree, the one hydration expects) and runs in a DOM-like environment with empty storage.
 */

import { createMemoryHistory } from '@tanstack/react-router'
import { renderToString } from 'react-dom/server'
import { App } from './app/app.tsx'
import { createAppRouter } from './app/router.tsx'

export { PRERENDERED_PAGES, prerenderGuardScript } from './lib/prerender-contract.ts'

/** The markup of `#root` for the page at `path`, after its route and its code have loaded. */
export async function prerenderPage(path: string): Promise<string> {
  const router = createAppRouter({
    history: createMemoryHistory({ initialEntries: [path] }),
    context: { getSession: () => null },
    scrollRestoration: false,
  })
  await router.load()
  const { pathname, searchStr } = router.state.location
  if (pathname !== path || searchStr) {
    throw new Error(
      `Prerendering ${path} ended on ${pathname}${searchStr}: it is not a static page`,
    )
  }
  return renderToString(<App router={router} />)
}
