/**
 * What the flows' jsdom drivers (`tests/flows/<flow>/view.test.tsx`) share: replaying a path
 * through the real screen around a harness whose actor runs the real machine, and checking that
 * the driver has a screen check for every state and an action for every event.
 */
import { waitFor } from '@testing-library/react'
import { expect } from 'vitest'
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from 'xstate'
import { leafNode, type QaPath, replayPath, stateNodes } from '#tests/mbt/index.ts'

/** What a view test's harness has at least: the actor that runs the real machine. */
export type ViewHarness = { actor: { getSnapshot: () => AnyMachineSnapshot } }

type SnapshotOf<H extends ViewHarness> = ReturnType<H['actor']['getSnapshot']>

/** What the screen must show in each state, keyed by the state node id. */
export type ScreenChecks<H extends ViewHarness> = Readonly<
  Record<string, (snapshot: SnapshotOf<H>, h: H) => void>
>

/** What the person does (or what a fake call answers) for each event of the union `E`. */
export type PerformEach<H, E extends EventObject> = {
  [K in E['type']]: (h: H, event: Extract<E, { type: K }>) => Promise<void>
}

/** {@link PerformEach} for any event union: what a replay looks an event's action up in. */
export type EventActions<H> = Readonly<Record<string, (h: H, event: never) => Promise<void>>>

/** The machine a screen runs and the signature that tells its states apart (a flow's model). */
export type ScreenModel = {
  machine: AnyStateMachine
  signature: (snapshot: AnyMachineSnapshot) => string
}

/**
 * Waits until the actor reached the modelled state `expected` (the same signature), then until
 * the screen shows it (the check of its leaf state node).
 */
export async function expectReached<H extends ViewHarness>(
  h: H,
  expected: AnyMachineSnapshot,
  model: ScreenModel,
  checks: ScreenChecks<H>,
): Promise<void> {
  await waitFor(() =>
    expect(model.signature(h.actor.getSnapshot())).toBe(model.signature(expected)),
  )
  const check = checks[leafNode(model.machine, expected).id]
  if (!check) throw new Error(`no screen expectation for ${JSON.stringify(expected.value)}`)
  await waitFor(() => check(h.actor.getSnapshot() as SnapshotOf<H>, h))
}

/**
 * Replays `path` through the screen `open` renders: performs each step's event with its action,
 * then expects the state it reached ({@link expectReached}). Returns the harness.
 */
export function replayThroughView<H extends ViewHarness>(
  path: QaPath,
  driver: {
    open: (path: QaPath) => Promise<H>
    model: ScreenModel
    perform: EventActions<H>
    checks: ScreenChecks<H>
  },
): Promise<H> {
  return replayPath(path, {
    open: driver.open,
    perform: (h, i) => {
      const event = path.steps[i]?.event as EventObject
      const action = driver.perform[event.type] as
        | ((h: H, e: EventObject) => Promise<void>)
        | undefined
      if (!action) throw new Error(`no action for ${event.type}`)
      return action(h, event)
    },
    expect: (h, i) =>
      expectReached(h, path.steps[i]?.state as AnyMachineSnapshot, driver.model, driver.checks),
  })
}

/**
 * Expects a screen check for every state node of `machine` that `checked` keeps (all of them
 * unless told), and an action for every event.
 */
export function expectEveryStateAndEvent(
  machine: AnyStateMachine,
  screenChecks: Readonly<Record<string, unknown>>,
  actions: Readonly<Record<string, unknown>>,
  events: readonly EventObject[],
  checked: (node: AnyStateNode) => boolean = () => true,
): void {
  for (const node of stateNodes(machine).filter(checked)) {
    expect(screenChecks[node.id], node.id).toBeTypeOf('function')
  }
  for (const event of events) expect(actions[event.type], event.type).toBeTypeOf('function')
}
