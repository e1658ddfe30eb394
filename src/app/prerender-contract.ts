import { PERSONNEL_SIGNED_UP_KEY } from '#domain/auth-keys.ts'
import { SIGN_UP_PROGRESS_KEY } from '#src/features/sign-up/sign-up-storage.ts'
import { SESSION_KEY } from '#src/lib/session.ts'

/**
 * Prerendered pages (issue 8): the build renders the public pages a first-time visitor opens
 * (empty storage, no query string) to HTML, the server answers that HTML inside `#root`, and the
 * browser paints the page before any JavaScript has arrived. The app then hydrates it: React
 * attaches to the markup instead of drawing it again.
 *
 * This module is what the build and the browser agree on; the names the server shares with them
 * are in domain/prerender.ts.
 */

/** The pages the build prerenders: their first render depends on the address alone. */
export const PRERENDERED_PAGES = ['/signin', '/signup', '/thankyou'] as const

/**
 * Pages whose first render depends on data the app fetches: the build renders their loading view
 * only, as a first paint in place of a blank page. It is never hydrated: the app renders the page
 * over it once its data is in. `pattern` is the addresses' regular expression.
 */
export const PRERENDERED_SHELLS = [
  { name: 'unsubscribe', pattern: '^/unsubscribe/[^/]+/?$' },
] as const

/**
 * What the build's prerendered.json (`PRERENDERED_FILE`) holds: the guard script's URL, each page's `#root` markup, and
 * each shell's.
 */
export type PrerenderedPages = {
  guard: string
  pages: { path: string; html: string }[]
  shells: { pattern: string; html: string }[]
}

/** Set on `<html>` by the guard script when this browser's storage changes the first render. */
export const STALE_PRERENDER_ATTRIBUTE = 'data-stale-prerender'

/**
 * The guard: a few lines the server links at the top of a prerendered page, run before the first
 * paint. The prerender shows what a first-time visitor sees; when this browser's storage says
 * otherwise (a signed-in user on /signin is sent to the dashboard, a personnel registration just
 * finished shows its banner on /signin, a wizard in progress resumes on its step), it marks the
 * page, the markup stays hidden (forms.css) and the app renders the page afresh instead of
 * hydrating. Without it, such a visitor would first see the wrong page, or type into a form that
 * is about to be replaced. Blocked storage reads as empty, as it does in the app.
 *
 * Served as a file: the content security policy allows no inline script.
 */
export function prerenderGuardScript(): string {
  const checks = {
    '/signin': [
      `s.getItem(${JSON.stringify(SESSION_KEY)})`,
      `l.getItem(${JSON.stringify(SESSION_KEY)})`,
      `s.getItem(${JSON.stringify(PERSONNEL_SIGNED_UP_KEY)})`,
    ],
    '/signup': [`s.getItem(${JSON.stringify(SIGN_UP_PROGRESS_KEY)})`],
  }
  const conditions = Object.entries(checks)
    .map(
      ([path, reads]) =>
        `(p === ${JSON.stringify(path)} && (${reads.join(' != null || ')} != null))`,
    )
    .join(' || ')
  return `// Glow Rewards: marks a prerendered page stale when this browser's storage changes its first render.
(function () {
  try {
    var p = location.pathname, s = sessionStorage, l = localStorage
    if (${conditions}) document.documentElement.setAttribute(${JSON.stringify(STALE_PRERENDER_ATTRIBUTE)}, '')
  } catch (e) {}
})()
`
}
