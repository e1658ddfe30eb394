import { afterEach, describe, expect, it } from 'vitest'
import { PERSONNEL_SIGNED_UP_KEY } from '#domain/auth-keys.ts'
import { SIGN_UP_PROGRESS_KEY } from '#src/features/sign-up/sign-up-storage.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { prerenderGuardScript, STALE_PRERENDER_ATTRIBUTE } from './prerender-contract.ts'

/** Runs the guard as the browser would on `path`, and says whether it marked the page stale. */
function guardMarksStale(path: string): boolean {
  window.history.replaceState(null, '', path)
  document.documentElement.removeAttribute(STALE_PRERENDER_ATTRIBUTE)
  new Function(prerenderGuardScript())()
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
})
