import { afterEach, describe, expect, it } from 'vitest'
import { SESSION_KEY } from '#src/lib/session.ts'
import { PERSONNEL_SIGNED_UP_KEY, SIGN_UP_PROGRESS_KEY } from '#src/lib/storage-keys.ts'
import {
  prerenderGuardScript,
  STALE_PRERENDER_ATTRIBUTE,
  takeHeldClick,
  takeHeldSubmit,
} from './prerender-contract.ts'

/** Runs the guard as the browser would on `path`, and says whether it marked the page stale. */
function guardMarksStale(path: string): boolean {
  window.history.replaceState(null, '', path)
  document.documentElement.removeAttribute(STALE_PRERENDER_ATTRIBUTE)
  new Function(prerenderGuardScript())()
  // Only the storage check is under test here.
  takeHeldSubmit()
  takeHeldClick()
  return document.documentElement.hasAttribute(STALE_PRERENDER_ATTRIBUTE)
}

describe('the prerender guard script', () => {
  afterEach(() => {
    sessionStorage.clear()
    localStorage.clear()
    document.documentElement.removeAttribute(STALE_PRERENDER_ATTRIBUTE)
  })

  it('leaves every prerendered page alone for a first-time visitor', () => {
    for (const path of ['/signin', '/signup', '/thankyou'])
      expect(guardMarksStale(path), path).toBe(false)
  })

  it('marks /signin stale for a stored session, in either storage, and for a finished personnel registration', () => {
    sessionStorage.setItem(SESSION_KEY, '{}')
    expect(guardMarksStale('/signin')).toBe(true)
    sessionStorage.clear()
    localStorage.setItem(SESSION_KEY, '{}')
    expect(guardMarksStale('/signin')).toBe(true)
    localStorage.clear()
    sessionStorage.setItem(PERSONNEL_SIGNED_UP_KEY, '')
    expect(guardMarksStale('/signin')).toBe(true)
    // Neither changes what /signup or /thankyou show first.
    expect(guardMarksStale('/signup')).toBe(false)
    expect(guardMarksStale('/thankyou')).toBe(false)
  })

  it('marks /signup stale when a wizard is in progress, and only /signup', () => {
    sessionStorage.setItem(SIGN_UP_PROGRESS_KEY, '{"step":2}')
    expect(guardMarksStale('/signup')).toBe(true)
    expect(guardMarksStale('/signin')).toBe(false)
  })

  it('treats storage it cannot read as empty, as the app does', () => {
    const original = Object.getOwnPropertyDescriptor(window, 'sessionStorage')
    Object.defineProperty(window, 'sessionStorage', {
      configurable: true,
      get() {
        throw new Error('blocked')
      },
    })
    try {
      expect(guardMarksStale('/signup')).toBe(false)
    } finally {
      if (original) Object.defineProperty(window, 'sessionStorage', original)
    }
  })

  it('keeps a form sent before the app listens, and never lets the browser send a form itself', () => {
    new Function(prerenderGuardScript())()
    document.body.innerHTML =
      '<form><input name="password" value="secret"><button>Sign In</button></form>'
    const button = document.querySelector('button') as HTMLButtonElement
    // A click on Sign In: the browser itself sends the submit event (a trusted one).
    const send = () => {
      let sent: Event | undefined
      const see = (event: Event) => {
        sent = event
      }
      document.addEventListener('submit', see)
      button.click()
      document.removeEventListener('submit', see)
      if (!sent?.isTrusted) throw new Error('the click sent no trusted submit event')
      return sent
    }
    try {
      // Before the app: not sent by the browser (no GET with the password), and kept.
      expect(send().defaultPrevented).toBe(true)
      expect(takeHeldSubmit()).toBe(button)
      expect(takeHeldSubmit()).toBeNull()
      // Once the app listens: still never the browser's to send, and nothing more is kept.
      const reachedPage: Event[] = []
      document.body.addEventListener('submit', (event) => reachedPage.push(event))
      const later = send()
      expect(later.defaultPrevented).toBe(true)
      expect(reachedPage).toEqual([later])
      expect(takeHeldSubmit()).toBeNull()
    } finally {
      document.body.innerHTML = ''
    }
  })

  it("keeps the last button clicked before the app listens, but not a form's own button", () => {
    new Function(prerenderGuardScript())()
    document.body.innerHTML =
      '<form><button type="button" id="show"><span>Show</span></button><button id="go">Sign In</button></form>' +
      '<button type="button" id="forgot">Forgot Password</button>'
    const click = (id: string, selector = `#${id}`) =>
      (document.querySelector(selector) as HTMLElement).click()
    try {
      click('show', '#show span')
      click('forgot')
      click('go')
      expect(takeHeldClick()?.id).toBe('forgot')
      expect(takeHeldSubmit()).toBeTruthy()
      // Once taken, nothing more is kept.
      click('forgot')
      expect(takeHeldClick()).toBeNull()
    } finally {
      document.body.innerHTML = ''
    }
  })
})
