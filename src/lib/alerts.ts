import { useSyncExternalStore } from 'react'

/**
 * A page-level banner (type success or danger). With `persist` it survives the
 * next navigation (for a message meant for the page being opened, such as "signed up, now sign
 * in") and is cleared by the one after; without it the next navigation clears it.
 */
export type Alert = {
  type: 'success' | 'danger'
  message: string
  persist?: boolean
}

let current: Alert | null = null
const listeners = new Set<() => void>()

function set(next: Alert | null): void {
  if (next === current) return
  current = next
  for (const listener of listeners) listener()
}

/** Shows an alert, replacing any other. */
export function showAlert(alert: Alert): void {
  set({ ...alert })
}

/** Removes the alert (the banner's close button). */
export function clearAlert(): void {
  set(null)
}

/** The alert now shown, or null. */
export function getAlert(): Alert | null {
  return current
}

/**
 * Tells the store a navigation finished: a persisting alert is kept once (and loses its persist
 * flag), any other alert is cleared. The router calls it after each resolved location change.
 */
export function noteNavigation(): void {
  if (current === null) return
  set(current.persist ? { ...current, persist: false } : null)
}

/** Calls `listener` whenever the alert changes. Returns the unsubscriber. */
export function subscribeAlerts(listener: () => void): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

/** The current alert for React views. */
export function useAlert(): Alert | null {
  return useSyncExternalStore(subscribeAlerts, getAlert, getAlert)
}
