import { act, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Session } from '#domain/session.ts'
import { demoSession as session } from '#tests/support/demo-session.ts'
import {
  clearSession,
  readSession,
  SESSION_KEY,
  subscribeSession,
  useSession,
  writeSession,
} from './session.ts'

afterEach(() => {
  localStorage.clear()
  sessionStorage.clear()
})

describe('session storage', () => {
  it('keeps the current user in localStorage with Remember me', () => {
    writeSession(session, true)
    expect(JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null')).toEqual(session)
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
    expect(readSession()).toEqual(session)
  })

  it('keeps the current user in sessionStorage without Remember me', () => {
    writeSession(session, false)
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null')).toEqual(session)
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
    expect(readSession()).toEqual(session)
  })

  it('moves the session when the choice changes, leaving one copy', () => {
    writeSession(session, true)
    writeSession(session, false)
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
    expect(sessionStorage.getItem(SESSION_KEY)).not.toBeNull()
    writeSession(session, true)
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
    expect(localStorage.getItem(SESSION_KEY)).not.toBeNull()
  })

  it('clears both storages on sign-out', () => {
    localStorage.setItem(SESSION_KEY, JSON.stringify(session))
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(session))
    clearSession()
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
    expect(readSession()).toBeNull()
  })

  it('treats unreadable JSON as signed out and removes it', () => {
    localStorage.setItem(SESSION_KEY, '{not json')
    expect(readSession()).toBeNull()
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it('treats a stored value of the wrong shape as signed out and removes it', () => {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify({ jwt: 'x', user: { id: 'seven' } }))
    expect(readSession()).toBeNull()
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it('falls back to the remembered session when the tab copy is corrupt', () => {
    sessionStorage.setItem(SESSION_KEY, 'garbage')
    localStorage.setItem(SESSION_KEY, JSON.stringify(session))
    expect(readSession()).toEqual(session)
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it('refuses to store a session of the wrong shape', () => {
    expect(() => writeSession({ ...session, jwt: 42 } as unknown as Session, true)).toThrow()
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
  })
})

describe('session subscribers', () => {
  it('hear writes and sign-outs until they unsubscribe', () => {
    const listener = vi.fn()
    const unsubscribe = subscribeSession(listener)
    writeSession(session, false)
    clearSession()
    expect(listener).toHaveBeenCalledTimes(2)
    unsubscribe()
    writeSession(session, false)
    expect(listener).toHaveBeenCalledTimes(2)
  })

  it('hear changes made in another tab', () => {
    const listener = vi.fn()
    const unsubscribe = subscribeSession(listener)
    window.dispatchEvent(new StorageEvent('storage', { key: SESSION_KEY }))
    window.dispatchEvent(new StorageEvent('storage', { key: 'unrelated' }))
    expect(listener).toHaveBeenCalledTimes(1)
    unsubscribe()
  })

  it('useSession re-renders with the current user', () => {
    const { result } = renderHook(() => useSession())
    expect(result.current).toBeNull()
    act(() => writeSession(session, true))
    expect(result.current).toEqual(session)
    const first = result.current
    // Reading again without a change gives the same object, as useSyncExternalStore requires.
    expect(readSession()).toBe(first)
    act(() => clearSession())
    expect(result.current).toBeNull()
  })
})
