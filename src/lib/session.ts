import { useSyncExternalStore } from 'react'
import * as v from 'valibot'
import { type Session, SessionSchema } from '#domain/session.ts'

/** The storage key of the current user. */
export const SESSION_KEY = 'currentUser'

type StorageName = 'localStorage' | 'sessionStorage'

// Storage can be missing or throw (private browsing, blocked cookies): treat that as "nothing stored".
function storage(name: StorageName): Storage | null {
  try {
    return globalThis[name] ?? null
  } catch {
    return null
  }
}

function readRaw(name: StorageName): string | null {
  try {
    return storage(name)?.getItem(SESSION_KEY) ?? null
  } catch {
    return null
  }
}

function remove(name: StorageName): void {
  try {
    storage(name)?.removeItem(SESSION_KEY)
  } catch {
    // Nothing stored where nothing can be stored.
  }
}

function parse(raw: string): Session | null {
  try {
    const result = v.safeParse(SessionSchema, JSON.parse(raw))
    return result.success ? result.output : null
  } catch {
    return null
  }
}

// useSyncExternalStore needs the same object back while nothing changed.
let cache: { raw: string | null; session: Session | null } = { raw: null, session: null }

/**
 * The signed-in user, or null. A session is looked up in sessionStorage (this tab only) first,
 * then in localStorage (Remember me). Stored data that does not match `SessionSchema` is removed
 * and counts as signed out.
 */
export function readSession(): Session | null {
  for (const name of ['sessionStorage', 'localStorage'] as const) {
    const raw = readRaw(name)
    if (raw === null) continue
    if (raw === cache.raw) return cache.session
    const session = parse(raw)
    if (session === null) {
      remove(name)
      continue
    }
    cache = { raw, session }
    return session
  }
  return null
}

const listeners = new Set<() => void>()

function notify(): void {
  for (const listener of listeners) listener()
}

/**
 * Stores the signed-in user: in localStorage with Remember me, else in sessionStorage; the other
 * storage is emptied so only one copy exists.
 */
export function writeSession(session: Session, remember: boolean): void {
  // Validate first: storing a shape readSession would reject would sign the user out on reload.
  const raw = JSON.stringify(v.parse(SessionSchema, session))
  const target: StorageName = remember ? 'localStorage' : 'sessionStorage'
  remove(remember ? 'sessionStorage' : 'localStorage')
  try {
    storage(target)?.setItem(SESSION_KEY, raw)
  } catch {
    // Storage full or blocked: the user stays signed in only until the page reloads.
  }
  notify()
}

/** Whether the stored session was kept with Remember me (in localStorage). */
export function isSessionRemembered(): boolean {
  try {
    return storage('localStorage')?.getItem(SESSION_KEY) != null
  } catch {
    return false
  }
}

/** Signs out locally: removes the current user from both storages. */
export function clearSession(): void {
  remove('localStorage')
  remove('sessionStorage')
  notify()
}

/** Calls `listener` whenever the session changes, here or in another tab. Returns the unsubscriber. */
export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener)
  const onStorage = (event: StorageEvent) => {
    if (event.key === SESSION_KEY || event.key === null) listener()
  }
  globalThis.addEventListener?.('storage', onStorage)
  return () => {
    listeners.delete(listener)
    globalThis.removeEventListener?.('storage', onStorage)
  }
}

/** The signed-in user for React views; re-renders when it changes. */
export function useSession(): Session | null {
  return useSyncExternalStore(subscribeSession, readSession, () => null)
}
