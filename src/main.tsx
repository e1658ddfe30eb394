import './app/mantine-styles.ts'
import './app/forms.css'
import { startTransition } from 'react'
import { createRoot, hydrateRoot } from 'react-dom/client'
import { PRERENDERED_ATTRIBUTE } from '#domain/prerender.ts'
import { App } from './app/app.tsx'
import { createAppRouter, loadAllRoutes, SHELL_ROUTE_ID } from './app/router.tsx'
import {
  adoptTypedValues,
  resendHeldSubmit,
  STALE_PRERENDER_ATTRIBUTE,
  takeHeldClick,
  takeHeldSubmit,
  whenPageMounted,
} from './lib/prerender-contract.ts'
import { readSession } from './lib/session.ts'

const router = createAppRouter()

/** The catch-all route (src/routes/$.tsx): the public tree's answer to a signed-in address. */
const CATCH_ALL_ROUTE_ID = '/$'

const found = document.getElementById('root')
if (!found) throw new Error('index.html has no #root element')
const root: HTMLElement = found

void start()

async function start() {
  const { pathname } = router.state.location
  // The entry chunk knows the public pages only: an address they do not match may be a signed-in
  // page, whose routes come first (the server asked for their chunk in the HTML already).
  if (router.getMatchedRoutes(pathname)[2]?.id === CATCH_ALL_ROUTE_ID) {
    await loadAllRoutes(router).catch(() => false)
  }
  // A signed-in area (never prerendered: its data is the user's) is rendered at once, and the
  // router loads its data meanwhile: the shell's header and navigation appear with the page's
  // skeleton (the pending view) where the data will be, instead of a white page until every
  // answer has arrived. The router's Transitioner starts that load when it mounts.
  const signedInArea =
    readSession() !== null &&
    router.getMatchedRoutes(pathname)[0].some((route) => route.id === SHELL_ROUTE_ID)
  if (signedInArea && root.getAttribute(PRERENDERED_ATTRIBUTE) === null) {
    document.documentElement.removeAttribute(STALE_PRERENDER_ATTRIBUTE)
    root.replaceChildren()
    startTransition(() => createRoot(root).render(<App router={router} />))
  } else {
    // Any other first page is resolved before anything renders (its guards run and its code
    // arrives; the server already asked for that code in the HTML).
    void router.load().finally(firstRender)
  }
}

function firstRender() {
  const html = document.documentElement
  // A page the server answered prerendered (src/lib/prerender-contract.ts) is hydrated: React
  // takes over the markup already on screen, in slices, and what a visitor typed meanwhile stays.
  // Once the page's own content is React's, what was typed meanwhile goes into the app's form
  // state, and a form sent before React listened (the guard script kept it) is sent again.
  if (
    root.getAttribute(PRERENDERED_ATTRIBUTE) === router.state.location.href &&
    !html.hasAttribute(STALE_PRERENDER_ATTRIBUTE)
  ) {
    const held = takeHeldSubmit()
    const clicked = takeHeldClick()
    whenPageMounted(() => {
      adoptTypedValues(root)
      // A form sent is what the visitor meant last; else a button they clicked is clicked again.
      if (held) resendHeldSubmit(held)
      else if (clicked?.isConnected) clicked.click()
      // The markup is React's now: a click on a select opens it (before, it went to dead markup).
      root.removeAttribute(PRERENDERED_ATTRIBUTE)
    })
    startTransition(() => {
      hydrateRoot(root, <App router={router} />)
    })
    return
  }
  // Otherwise the page is rendered once, as a transition: React renders it in slices and yields
  // to the browser between them. Rendering first and resolving after made the router's state
  // change re-render the whole page synchronously, one long task of 600 ms on /signup at 4x CPU
  // slowdown. Prerendered markup this browser's storage made stale (hidden) is dropped
  // first.
  if (html.hasAttribute(STALE_PRERENDER_ATTRIBUTE)) {
    root.replaceChildren()
    html.removeAttribute(STALE_PRERENDER_ATTRIBUTE)
  }
  root.removeAttribute(PRERENDERED_ATTRIBUTE)
  // No form of the prerendered markup stays: nothing kept is sent or clicked again.
  takeHeldSubmit()
  takeHeldClick()
  startTransition(() => createRoot(root).render(<App router={router} />))
}
