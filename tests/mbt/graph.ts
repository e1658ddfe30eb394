/**
 * What a statechart is made of, as the engine counts it: the state nodes a snapshot can rest in,
 * every transition (`on`, `after`, done and error, and eventless ones), which of them a path
 * reaches, and the leaf state a snapshot is in. No flow names: any XState v5 machine.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from 'xstate'
import { getStateNodes, type StatePath } from 'xstate/graph'

/** A generated path: its steps (`steps[0]` is the start) and where it ends. */
export type Path = StatePath<AnyMachineSnapshot, EventObject>

/** What some paths reach of one machine: state node ids and transition keys. */
export type Reach = { states: Set<string>; transitions: Set<string> }

/** A transition of the machine: where it is defined, on which event, and its place there. */
type Transition = { source: AnyStateNode; eventType: string; index: number }

/** A readable key: `signUp.billing.editing --plan.termChange[0]-->`, `…--always[1]-->`. */
export function transitionKey({ source, eventType, index }: Transition): string {
  return `${source.id} --${eventType}[${index}]-->`
}

/** The `matches` value of a state node path: `['editing', 'ready']` → `{ editing: 'ready' }`. */
export function pathToValue(path: readonly string[]): unknown {
  return path.reduceRight<unknown>((inner, key) => (inner === null ? key : { [key]: inner }), null)
}

function isTransient(node: AnyStateNode): boolean {
  return node.always !== undefined && node.always.length > 0 && node.transitions.size === 0
}

/** Every state node a snapshot can rest in (all but the root and eventless start nodes). */
export function stateNodes(machine: AnyStateMachine): AnyStateNode[] {
  return getStateNodes(machine.root).filter((node) => !isTransient(node))
}

/** Every transition key of the machine: `on`, `after`, done and error, and eventless ones. */
export function transitions(machine: AnyStateMachine): string[] {
  const keys: string[] = []
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((_, index) => {
        keys.push(transitionKey({ source: node, eventType, index }))
      })
    }
    node.always?.forEach((_, index) => {
      keys.push(transitionKey({ source: node, eventType: 'always', index }))
    })
  }
  return keys
}

/** The state nodes a snapshot is in, outermost first. */
export function activeNodes(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
): AnyStateNode[] {
  return stateNodes(machine)
    .filter((node) => snapshot.matches(pathToValue(node.path) as never))
    .sort((a, b) => a.path.length - b.path.length)
}

/** The innermost (atomic or final) state node a snapshot is in. */
export function leafNode(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): AnyStateNode {
  const nodes = activeNodes(machine, snapshot).filter(
    (node) => node.type === 'atomic' || node.type === 'final',
  )
  const [leaf] = nodes
  if (!leaf || nodes.length !== 1) {
    throw new Error(`no single leaf state for ${JSON.stringify(snapshot.value)}`)
  }
  return leaf
}

/** The transitions the machine takes for `event` in `snapshot`. */
function takenTransitions(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
): string[] {
  return (machine.getTransitionData(snapshot, event) ?? []).map((definition) => {
    const index = definition.source.transitions.get(definition.eventType)?.indexOf(definition) ?? -1
    return transitionKey({ source: definition.source, eventType: definition.eventType, index })
  })
}

/**
 * The eventless transitions taken on the way into the first snapshot: a start node's `always`
 * branch whose target the first snapshot is in.
 */
function startTransitions(machine: AnyStateMachine, first: AnyMachineSnapshot): string[] {
  const keys: string[] = []
  for (const node of getStateNodes(machine.root).filter(isTransient)) {
    const index = (node.always ?? []).findIndex((definition) =>
      (definition.target ?? []).some((target) => first.matches(pathToValue(target.path) as never)),
    )
    if (index >= 0) keys.push(transitionKey({ source: node, eventType: 'always', index }))
  }
  return keys
}

/** What a path reaches of its machine. */
export function coverageOf(
  machine: AnyStateMachine,
  path: { steps: readonly { event: EventObject; state: AnyMachineSnapshot }[] },
): Reach {
  const states = new Set<string>()
  const reached = new Set<string>()
  const first = path.steps[0]?.state
  if (first) for (const key of startTransitions(machine, first)) reached.add(key)
  path.steps.forEach((step, i) => {
    for (const node of activeNodes(machine, step.state)) states.add(node.id)
    const previous = path.steps[i - 1]
    if (previous) {
      for (const key of takenTransitions(machine, previous.state, step.event)) reached.add(key)
    }
  })
  return { states, transitions: reached }
}

/** The actor id of a done or error event (`xstate.done.actor.signIn` → `signIn`). */
export function answerActor(event: EventObject): string | undefined {
  return /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1]
}

/** The ids of the actors the leaf state of a snapshot invokes (its busy calls, its child flows). */
export function invokedActors(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): string[] {
  return leafNode(machine, snapshot).invoke.map((definition) => definition.id)
}
