/**
 * Every registered model's paths replayed on a live actor, without views: person events are
 * sent, each call is a promise the replay settles with the path's answer, delays are run on the
 * fake clock, and after every step the actor's signature is the modelled one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type AnyStateMachine, createActor, type EventObject, fromPromise } from 'xstate'
import { FLOWS } from '#tests/flows/registry.ts'
import { answerActor, flowPaths, pathTitle, type QaPath, qaFlow } from '#tests/mbt/index.ts'

type Pending = { resolve: (value: unknown) => void; reject: (error: unknown) => void }

/** The machine with every call (and child flow) replaced by a promise the replay settles. */
function withFakeCalls(machine: AnyStateMachine, pending: Map<string, Pending>): AnyStateMachine {
  const names = Object.keys(machine.implementations.actors)
  const actors = Object.fromEntries(
    names.map((name) => [
      name,
      fromPromise(
        () =>
          new Promise((resolve, reject) => {
            pending.set(name, { resolve, reject })
          }),
      ),
    ]),
  )
  return machine.provide({ actors })
}

/** Lets settled promises deliver their done and error events (the clock is fake). */
async function flushCalls() {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

/** Replays a path on a live actor: person events are sent, calls settled, delays run. */
async function replay(path: QaPath) {
  const { model } = path
  const pending = new Map<string, Pending>()
  const actor = createActor(withFakeCalls(model.machine, pending), { input: path.input }).start()
  const [first, ...rest] = path.steps
  if (first) expect(model.signature(actor.getSnapshot())).toBe(model.signature(first.state))
  for (const step of rest) {
    const event = step.event as EventObject & { output?: unknown; error?: unknown }
    const actorId = answerActor(event)
    if (actorId && event.type.startsWith('xstate.done.')) {
      pending.get(actorId)?.resolve(event.output)
    } else if (actorId) {
      pending.get(actorId)?.reject(event.error)
    } else if (event.type.startsWith('xstate.after.')) {
      vi.advanceTimersToNextTimer()
    } else {
      actor.send(event)
    }
    await flushCalls()
    expect(model.signature(actor.getSnapshot()), pathTitle(path)).toBe(model.signature(step.state))
  }
  actor.stop()
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date(2026, 5, 15, 9, 0, 0) })
})
afterEach(() => {
  vi.useRealTimers()
})

describe.each(FLOWS.map((flow) => [flow.id, flow] as const))('%s: machines', (_, spec) => {
  it.each(flowPaths(qaFlow(spec)).map((p) => [pathTitle(p), p] as const))(
    'replays %s on a live actor',
    async (_, path) => {
      await replay(path)
    },
  )
})
