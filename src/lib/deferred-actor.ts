import { useEffect, useState } from 'react'
import type { ActorSource } from './actor-source.ts'

/** An actor as XState creates it: started once it is on screen, stopped when it leaves. */
export type StartableActor<TSnapshot, TEvent> = ActorSource<TSnapshot, TEvent> & {
  start(): unknown
  stop(): unknown
}

/** How a {@link DeferredActor} gets its actor. */
export type DeferredActorOptions<TKit, TSnapshot, TEvent> = {
  /** Loads the machine's code (a dynamic import); called once, and again after a failure. */
  load: () => Promise<TKit>
  /** What `load` answered, when it had answered before: the actor is created at once. */
  loaded?: TKit | undefined
  /** Creates the actor from what `load` answered (not started). */
  create: (kit: TKit) => StartableActor<TSnapshot, TEvent>
  /** Told when `load` failed; the events sent meanwhile are dropped, the next one tries again. */
  onLoadFailure: (error: unknown) => void
}

/**
 * An actor whose machine (XState and the flow's code, 15 KB gzip for the sign-in screen) is
 * loaded when someone starts to use the page, not with it: until then its snapshot is
 * `undefined`, which the view shows as the machine's first state, and the events sent are kept
 * and delivered in order once the actor runs. Its view is on screen meanwhile (prerendered or
 * rendered at once), so nothing the visitor typed or clicked is lost.
 */
export class DeferredActor<TKit, TSnapshot, TEvent>
  implements ActorSource<TSnapshot | undefined, TEvent>
{
  readonly #options: DeferredActorOptions<TKit, TSnapshot, TEvent>
  readonly #listeners = new Set<(snapshot: TSnapshot | undefined) => void>()
  #kit: TKit | undefined
  #loading: Promise<void> | undefined
  #actor: StartableActor<TSnapshot, TEvent> | undefined
  #unsubscribe: (() => void) | undefined
  #attached = false
  #queue: TEvent[] = []

  constructor(options: DeferredActorOptions<TKit, TSnapshot, TEvent>) {
    this.#options = options
    this.#kit = options.loaded
    // Loaded before: the first render shows the machine's own first state.
    if (this.#kit !== undefined) this.#actor = options.create(this.#kit)
  }

  getSnapshot = (): TSnapshot | undefined => this.#actor?.getSnapshot()

  subscribe = (listener: (snapshot: TSnapshot | undefined) => void) => {
    this.#listeners.add(listener)
    return { unsubscribe: () => void this.#listeners.delete(listener) }
  }

  /** Sends `event` to the actor, or keeps it (and starts loading) until the actor runs. */
  send = (event: TEvent): void => {
    if (this.#actor && this.#attached) {
      this.#actor.send(event)
      return
    }
    this.#queue.push(event)
    this.load()
  }

  /** Starts loading the machine's code, unless it is loaded or on its way. */
  load = (): void => {
    if (this.#kit !== undefined || this.#loading) return
    this.#loading = this.#options.load().then(
      (kit) => {
        this.#loading = undefined
        this.#kit = kit
        this.#run()
      },
      (error: unknown) => {
        this.#loading = undefined
        this.#queue = []
        this.#options.onLoadFailure(error)
      },
    )
  }

  /** The view is on screen: the actor runs as soon as it exists. */
  attach(): void {
    this.#attached = true
    this.#run()
  }

  /** The view left the screen: the actor stops (a later attach starts a new one). */
  detach(): void {
    this.#attached = false
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
    if (this.#actor) {
      this.#actor.stop()
      this.#actor = undefined
    }
  }

  #run(): void {
    if (!this.#attached || this.#kit === undefined || this.#unsubscribe) return
    this.#actor ??= this.#options.create(this.#kit)
    const actor = this.#actor
    const subscription = actor.subscribe((snapshot) => this.#emit(snapshot))
    this.#unsubscribe = () => subscription.unsubscribe()
    actor.start()
    this.#emit(actor.getSnapshot())
    for (const event of this.#queue.splice(0)) actor.send(event)
  }

  #emit(snapshot: TSnapshot | undefined): void {
    for (const listener of this.#listeners) listener(snapshot)
  }
}

/** The first signs that someone starts to use a page: the machine's code is fetched then. */
const INTENT_EVENTS = ['focusin', 'pointerdown', 'keydown'] as const

/**
 * A {@link DeferredActor} for a view's lifetime: attached while mounted, loading its machine on
 * mount when `eager` (the first state depends on the machine) and otherwise at the first focus,
 * pointer or key press on the page, or the first event sent.
 */
export function useDeferredActor<TKit, TSnapshot, TEvent>(
  options: DeferredActorOptions<TKit, TSnapshot, TEvent> & { eager?: boolean },
): DeferredActor<TKit, TSnapshot, TEvent> {
  const [actor] = useState(() => new DeferredActor(options))
  const eager = options.eager ?? false
  useEffect(() => {
    actor.attach()
    return () => actor.detach()
  }, [actor])
  useEffect(() => {
    if (eager) {
      actor.load()
      return
    }
    const load = () => actor.load()
    for (const type of INTENT_EVENTS) document.addEventListener(type, load, { once: true })
    return () => {
      for (const type of INTENT_EVENTS) document.removeEventListener(type, load)
    }
  }, [actor, eager])
  return actor
}
