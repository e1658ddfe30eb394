import { describe, expect, it, vi } from 'vitest'
import { assign, createActor, setup } from 'xstate'
import { DeferredActor } from './deferred-actor.ts'

type CounterEvent = { type: 'add'; by: number } | { type: 'double' }

/** A real machine: adding then doubling gives another total than doubling then adding. */
const counter = setup({
  types: { context: {} as { total: number }, events: {} as CounterEvent },
}).createMachine({
  context: { total: 1 },
  on: {
    add: { actions: assign({ total: ({ context, event }) => context.total + event.by }) },
    double: { actions: assign({ total: ({ context }) => context.total * 2 }) },
  },
})

type Kit = { machine: typeof counter }

/** A load the test answers when it likes, counting its calls. */
function controlledLoad() {
  const calls: {
    resolve: (kit: Kit) => void
    reject: (error: Error) => void
    answer: Promise<Kit>
  }[] = []
  const load = () => {
    let resolve: (kit: Kit) => void = () => {}
    let reject: (error: Error) => void = () => {}
    const answer = new Promise<Kit>((ok, fail) => {
      resolve = ok
      reject = fail
    })
    calls.push({ resolve, reject, answer })
    return answer
  }
  return { load, calls }
}

function deferred(load: () => Promise<Kit>, extra: { loaded?: Kit } = {}) {
  const onLoadFailure = vi.fn()
  const actor = new DeferredActor({
    load,
    create: (kit: Kit) => createActor(kit.machine),
    onLoadFailure,
    ...extra,
  })
  return { actor, onLoadFailure }
}

const total = (
  actor: DeferredActor<
    Kit,
    ReturnType<ReturnType<typeof createActor<typeof counter>>['getSnapshot']>,
    CounterEvent
  >,
) => actor.getSnapshot()?.context.total

describe('a deferred actor', () => {
  it('has no snapshot until its machine arrives, then delivers the events kept meanwhile in order', async () => {
    const { load, calls } = controlledLoad()
    const { actor } = deferred(load)
    actor.attach()
    const seen: (number | undefined)[] = []
    actor.subscribe((snapshot) => seen.push(snapshot?.context.total))
    expect(actor.getSnapshot()).toBeUndefined()
    expect(calls).toHaveLength(0)

    actor.send({ type: 'add', by: 2 })
    actor.send({ type: 'double' })
    // The first event asked for the machine, once.
    expect(calls).toHaveLength(1)
    calls[0]?.resolve({ machine: counter })
    await vi.waitFor(() => expect(total(actor)).toBe(6))
    // (1 + 2) × 2, not 1 × 2 + 2: the order was kept.
    expect(seen.at(0)).toBe(1)
    expect(seen.at(-1)).toBe(6)
    actor.send({ type: 'add', by: 1 })
    expect(total(actor)).toBe(7)
    expect(calls).toHaveLength(1)
  })

  it('starts with the machine at once when it was loaded before', () => {
    const { actor } = deferred(() => Promise.reject(new Error('not asked')), {
      loaded: { machine: counter },
    })
    // Its first state is there for the first render, before it is attached.
    expect(total(actor)).toBe(1)
    actor.attach()
    actor.send({ type: 'double' })
    expect(total(actor)).toBe(2)
  })

  it('keeps events sent before it is attached until it is', async () => {
    const { load, calls } = controlledLoad()
    const { actor } = deferred(load)
    actor.send({ type: 'add', by: 4 })
    calls[0]?.resolve({ machine: counter })
    // The actor's own handler of the answer ran first: it was registered before this await.
    await calls[0]?.answer
    expect(actor.getSnapshot()).toBeUndefined()
    actor.attach()
    expect(total(actor)).toBe(5)
  })

  it('tells of a failed load, drops what was sent meanwhile, and tries again on the next event', async () => {
    const { load, calls } = controlledLoad()
    const { actor, onLoadFailure } = deferred(load)
    actor.attach()
    actor.send({ type: 'add', by: 10 })
    calls[0]?.reject(new Error('chunk failed'))
    await vi.waitFor(() => expect(onLoadFailure).toHaveBeenCalledTimes(1))
    expect(actor.getSnapshot()).toBeUndefined()

    actor.send({ type: 'double' })
    expect(calls).toHaveLength(2)
    calls[1]?.resolve({ machine: counter })
    // Only the event sent after the failure counts: 1 × 2.
    await vi.waitFor(() => expect(total(actor)).toBe(2))
  })

  it('stops its actor when detached and starts a fresh one when attached again', async () => {
    const { actor } = deferred(() => Promise.reject(new Error('not asked')), {
      loaded: { machine: counter },
    })
    actor.attach()
    actor.send({ type: 'add', by: 1 })
    expect(total(actor)).toBe(2)
    actor.detach()
    expect(actor.getSnapshot()).toBeUndefined()
    // A view mounted again (React's strict mode does it once) gets the machine's first state.
    actor.attach()
    expect(total(actor)).toBe(1)
  })

  it('loads once however many times it is asked', () => {
    const { load, calls } = controlledLoad()
    const { actor } = deferred(load)
    actor.load()
    actor.load()
    actor.send({ type: 'double' })
    expect(calls).toHaveLength(1)
  })
})
