/**
 * Model-based coverage of the sign-up wizard and its phone verification, without views: the
 * paths generated from the real machines with the fixture events reach every state node and take
 * every transition, and each path replays on a live actor whose calls are fakes the test answers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  type EventObject,
  fromPromise,
} from 'xstate'
import { RESEND_COOLDOWN_MS } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  coverageOf,
  type Model,
  type ModelPath,
  modelStateNodes,
  modelTransitions,
  phoneVerificationModel,
  selectPaths,
  signUpModel,
} from './sign-up.paths.ts'

type Pending = { resolve: (value: unknown) => void; reject: (error: unknown) => void }

/** The machine with every call replaced by a promise the replay settles. */
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

const DONE = /^xstate\.done\.actor\.(.+)$/
const ERROR = /^xstate\.error\.actor\.(.+)$/

/** Lets settled promises deliver their done and error events (the clock is fake). */
async function flushCalls() {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

async function expectAt(actor: AnyActorRef, model: Model, expected: AnyMachineSnapshot) {
  await flushCalls()
  expect(model.signature(actor.getSnapshot())).toBe(model.signature(expected))
}

/** Replays a path on a live actor: person events are sent, calls settled, timers advanced. */
async function replay(model: Model, { scenario, path }: ModelPath) {
  const pending = new Map<string, Pending>()
  const input = model.scenarios.find((s) => s.name === scenario)?.input
  const actor = createActor(withFakeCalls(model.machine, pending), { input }).start()
  const [first, ...rest] = path.steps
  if (first) expect(model.signature(actor.getSnapshot())).toBe(model.signature(first.state))
  for (const step of rest) {
    const event = step.event as EventObject & { output?: unknown; error?: unknown }
    const done = DONE.exec(event.type)
    const failed = ERROR.exec(event.type)
    if (done?.[1]) {
      pending.get(done[1])?.resolve(event.output)
    } else if (failed?.[1]) {
      pending.get(failed[1])?.reject(event.error)
    } else if (event.type.startsWith('xstate.after.')) {
      vi.advanceTimersByTime(RESEND_COOLDOWN_MS)
    } else {
      actor.send(event)
    }
    await expectAt(actor, model, step.state)
  }
  actor.stop()
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date(2026, 5, 15, 9, 0, 0) })
})
afterEach(() => {
  vi.useRealTimers()
})

describe.each([phoneVerificationModel, signUpModel])('$name model', (model) => {
  const paths = selectPaths(model)
  const reached = { states: new Set<string>(), transitions: new Set<string>() }
  for (const { path } of paths) {
    const coverage = coverageOf(model.machine, path)
    for (const id of coverage.states) reached.states.add(id)
    for (const key of coverage.transitions) reached.transitions.add(key)
  }

  it('reaches every state node', () => {
    const missing = modelStateNodes(model.machine)
      .map((node) => node.id)
      .filter((id) => !reached.states.has(id))
    expect(missing).toEqual([])
  })

  it('takes every transition', () => {
    const missing = modelTransitions(model.machine).filter((key) => !reached.transitions.has(key))
    expect(missing).toEqual([])
  })

  it('keeps the cover small', () => {
    expect(paths.length).toBeGreaterThan(0)
    expect(paths.length).toBeLessThanOrEqual(modelTransitions(model.machine).length)
  })

  it.each(paths.map((p) => [p.description, p] as const))('replays %s', async (_, path) => {
    await replay(model, path)
  })
})
