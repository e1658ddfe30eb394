import { AFTER_PAINT_TEMPLATE_ID } from '#domain/prerender.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { PERSONNEL_SIGNED_UP_KEY, SIGN_UP_PROGRESS_KEY } from '#src/lib/storage-keys.ts'

/**
 * Prerendered pages: the build renders the public pages a first-time visitor opens
 * (empty storage, no query string) to HTML, the server answers that HTML inside `#root`, and the
 * browser paints the page before any JavaScript has arrived. The app then hydrates it: React
 * attaches to the markup instead of drawing it again.
 *
 * This module is what the build and the browser agree on; the names the server shares with them
 * are in domain/prerender.ts.
 */

/** The pages the build prerenders: their first render depends on the address alone. */
export const PRERENDERED_PAGES = [
  '/signin',
  '/signup',
  '/thankyou',
  '/terms',
  '/agreement',
  '/about',
] as const

/**
 * What the build's prerendered.json (`PRERENDERED_FILE`) holds: the guard script's URL, each
 * page's `#root` markup.
 */
export type PrerenderedPages = {
  guard: string
  pages: { path: string; html: string }[]
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
 * It also keeps the browser from sending a form itself (a GET with the fields in the address):
 * every form of the app is the app's to send, and before the app has loaded, a click on Sign In
 * would otherwise reload the page. A form sent before the app listens is kept
 * ({@link takeHeldSubmit}) and sent again to the app once it has taken the page over
 * ({@link resendHeldSubmit}), so that click is not lost.
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
  return `// Glow Rewards: marks a prerendered page stale when this browser's storage changes its first
// render, and keeps the browser from sending a form itself (the app sends every form).
(function () {
  var listening = true, held = null, clicked = null
  document.addEventListener('submit', function (event) {
    if (!event.isTrusted) return
    event.preventDefault()
    if (listening) held = event.submitter || event.target
  }, true)
  // A click on a button that is not a form's (Forgot Password, show the password) does nothing in
  // markup alone: the last one is kept for the app to click again.
  document.addEventListener('click', function (event) {
    if (!listening || !event.target.closest) return
    var button = event.target.closest('button[type="button"]')
    if (button) clicked = button
  }, true)
  window[${JSON.stringify(HELD_SUBMIT_GLOBAL)}] = function () {
    listening = false
    var last = held
    held = null
    return last
  }
  window[${JSON.stringify(HELD_CLICK_GLOBAL)}] = function () {
    listening = false
    var last = clicked
    clicked = null
    return last
  }
  var stale = false
  try {
    var p = location.pathname, s = sessionStorage, l = localStorage
    if (${conditions}) stale = true
  } catch (e) {}
  if (stale) document.documentElement.setAttribute(${JSON.stringify(STALE_PRERENDER_ATTRIBUTE)}, '')
  // The app's scripts, once the page has painted (or at once when its markup is stale and hidden;
  // and after 3 s at the latest: a page opened in a background tab paints no frame).
  var started = false
  function start() {
    if (started) return
    var later = document.getElementById(${JSON.stringify(AFTER_PAINT_TEMPLATE_ID)})
    if (!later && document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', start)
      return
    }
    started = true
    if (later) document.head.appendChild(document.importNode(later.content, true))
  }
  if (stale) document.addEventListener('DOMContentLoaded', start)
  else requestAnimationFrame(function () { setTimeout(start, 0) })
  setTimeout(start, 3000)
})()
`
}

/** The global the guard script leaves for {@link takeHeldSubmit}. */
const HELD_SUBMIT_GLOBAL = 'glowTakeHeldSubmit'

/** The global the guard script leaves for {@link takeHeldClick}. */
const HELD_CLICK_GLOBAL = 'glowTakeHeldClick'

/**
 * The last button (other than a form's submit button) clicked before the app listened, if any;
 * from now on the guard keeps nothing more. Null on a page without the guard. Take it together
 * with {@link takeHeldSubmit}: the first of them stops the guard keeping either.
 */
export function takeHeldClick(): HTMLElement | null {
  const take = (globalThis as Record<string, unknown>)[HELD_CLICK_GLOBAL]
  if (typeof take !== 'function') return null
  delete (globalThis as Record<string, unknown>)[HELD_CLICK_GLOBAL]
  return (take as () => HTMLElement | null)()
}

/**
 * What was sent (the submit button, or the form) before the app listened, if anything; from now
 * on the app listens and the guard keeps nothing more. Null on a page without the guard.
 */
export function takeHeldSubmit(): HTMLElement | null {
  const take = (globalThis as Record<string, unknown>)[HELD_SUBMIT_GLOBAL]
  if (typeof take !== 'function') return null
  delete (globalThis as Record<string, unknown>)[HELD_SUBMIT_GLOBAL]
  return (take as () => HTMLElement | null)()
}

/**
 * Sends a kept form to the app: a submit event its handlers receive, which never makes the
 * browser send the form itself. Every form of the app is sent through Mantine's `form.onSubmit`,
 * which cancels the event; an event nobody cancelled reached a part of the page React has not
 * hydrated yet (it hydrates each Suspense boundary on its own, after the first commit), so it is
 * sent again a moment later, for up to 5 s.
 */
export function resendHeldSubmit(held: HTMLElement | null, attemptsLeft = 100): void {
  if (!held?.isConnected) return
  const form = held instanceof HTMLFormElement ? held : (held as HTMLButtonElement).form
  if (!form) return
  const submitter = held instanceof HTMLFormElement ? null : held
  const event = new SubmitEvent('submit', { bubbles: true, cancelable: true, submitter })
  form.dispatchEvent(event)
  if (!event.defaultPrevented && attemptsLeft > 1) {
    setTimeout(() => resendHeldSubmit(held, attemptsLeft - 1), 50)
  }
}

/**
 * What a visitor typed (or a password manager filled in) before the page was hydrated is on
 * screen but not in the app's form state: no change event reached React then. This hands each
 * such field to the app as the change it was, once the page's part of the tree is hydrated:
 * React only reports a change when the value differs from the one it last saw, so the field is
 * first put back, through React, to the value it was rendered with, then set again natively.
 */
export function adoptTypedValues(container: HTMLElement): void {
  for (const field of container.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
    'input, textarea',
  )) {
    if (
      field instanceof HTMLInputElement &&
      (field.type === 'checkbox' || field.type === 'radio')
    ) {
      if (field.checked === field.defaultChecked) continue
      field.checked = field.defaultChecked
      field.click()
      continue
    }
    if (field.value === field.defaultValue) continue
    const typed = field.value
    field.value = field.defaultValue
    const prototype = Object.getPrototypeOf(field) as HTMLInputElement | HTMLTextAreaElement
    Object.getOwnPropertyDescriptor(prototype, 'value')?.set?.call(field, typed)
    field.dispatchEvent(new Event('input', { bubbles: true }))
  }
}

let pageMounted: (() => void) | null = null

/** Runs `callback` once the first page's own content has been committed (see {@link notePageMounted}). */
export function whenPageMounted(callback: () => void): void {
  pageMounted = callback
}

/**
 * Called by the public pages' frame when it mounts: on a hydrated page, that is when the page's
 * own content (inside the router's Suspense boundaries, which React hydrates after the rest) is
 * React's. Only the first call does anything.
 */
export function notePageMounted(): void {
  const callback = pageMounted
  pageMounted = null
  callback?.()
}
