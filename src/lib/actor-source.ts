import { useCallback, useRef, useSyncExternalStore } from 'react'

/**
 * What a view needs of an actor: its snapshot, a way to hear of changes and a way to send it
 * events. An XState actor is one; so is a {@link DeferredActor} whose machine is not loaded yet.
 * Views depend on this, not on `xstate`, so that a page can show before the machine's code
 * arrives.
 */
export type ActorSource<TSnapshot, TEvent> = {
  getSnapshot(): TSnapshot
  subscribe(listener: (snapshot: TSnapshot) => void): { unsubscribe(): void }
  send(event: TEvent): void
}

/** True when `a` and `b` have the same keys with the same values (`Object.is`). */
export function shallowEqual<T>(a: T, b: T): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) &&
      Object.is((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  )
}

/**
 * What `select` picks from the actor's snapshot, re-rendering only when that changes (by
 * `equal`): `@xstate/react`'s `useSelector`, for any {@link ActorSource}.
 */
export function useActorSelector<TSnapshot, T>(
  actor: ActorSource<TSnapshot, never>,
  select: (snapshot: TSnapshot) => T,
  equal: (a: T, b: T) => boolean = Object.is,
): T {
  const latest = useRef({ select, equal })
  latest.current = { select, equal }
  // The last snapshot and what was picked from it: the same answer while nothing changed, as
  // useSyncExternalStore requires.
  const last = useRef<{ snapshot: TSnapshot; picked: T } | null>(null)
  const subscribe = useCallback(
    (onChange: () => void) => {
      const subscription = actor.subscribe(() => onChange())
      return () => subscription.unsubscribe()
    },
    [actor],
  )
  const pick = useCallback(() => {
    const snapshot = actor.getSnapshot()
    const previous = last.current
    if (previous && Object.is(previous.snapshot, snapshot)) return previous.picked
    const picked = latest.current.select(snapshot)
    const kept =
      previous && latest.current.equal(previous.picked, picked) ? previous.picked : picked
    last.current = { snapshot, picked: kept }
    return kept
  }, [actor])
  return useSyncExternalStore(subscribe, pick, pick)
}
