/**
 * Test paths of the personnel registration, generated from the real machines with xstate/graph:
 * the shortest path to every state plus, for every edge of the adjacency map, the shortest path
 * to its source and that edge (a transition cover); then the fewest of those paths that still
 * reach every state node and take every transition. Two models: the registration itself, and
 * the phone verification it invokes, as the registration screen shows it.
 */
import type { ActorLogic, AnyMachineSnapshot, AnyStateMachine, AnyStateNode } from 'xstate'
import {
  type AdjacencyValue,
  getAdjacencyMap,
  getShortestPaths,
  getStateNodes,
  type StatePath,
  type TraversalOptions,
} from 'xstate/graph'
import { registerPersonnelMachine } from '#machines/personnel/register-personnel.machine.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import {
  fixtures,
  type PhoneModelEvent,
  phoneEvents,
  type RegisterPersonnelModelEvent,
  registerPersonnelEvents,
} from './register-personnel.events.ts'

type AnyEvent = { type: string }
/** A generated path. */
export type ModelPath<E extends AnyEvent = AnyEvent> = StatePath<AnyMachineSnapshot, E>
type Transition = { source: AnyStateNode; eventType: string; index: number }

/** The `matches` value of a state node path: `['editing', 'phoneVerified']` → `{editing: …}`. */
export function pathToValue(path: string[]): unknown {
  return path.reduceRight<unknown>((inner, key) => (inner === null ? key : { [key]: inner }), null)
}

/** A readable key of a transition: `registerPersonnel.loading --xstate.done.actor…[0]-->`. */
export function transitionKey({ source, eventType, index }: Transition): string {
  return `${source.id} --${eventType}[${index}]-->`
}

/** What xstate/graph needs to walk a machine, and how the screen tells its states apart. */
type PlanOptions<E extends AnyEvent> = {
  input?: unknown
  events: E[]
  /** Events a person (or a server answer) can cause in this snapshot. */
  filterEvents: (snapshot: AnyMachineSnapshot, event: E) => boolean
  /** The part of a snapshot the screen shows; equal signatures are one state of the graph. */
  signature: (snapshot: AnyMachineSnapshot) => string
}

/** A machine's model: its state nodes and transitions, and the paths that cover them. */
export type PathPlan<E extends AnyEvent> = {
  paths: Array<{ path: ModelPath<E>; description: string }>
  /** Every state node a screen can rest in (eventless steps left out). */
  stateNodes: AnyStateNode[]
  /** Every event-driven transition (`on`, `after`, done and error). */
  transitions: Transition[]
  coverageOf(path: ModelPath<E>): { states: Set<string>; transitions: Set<string> }
  signature: (snapshot: AnyMachineSnapshot) => string
}

/** Walks `machine` with xstate/graph and picks the covering paths. Deterministic. */
function planPaths<E extends AnyEvent>(
  machine: AnyStateMachine,
  options: PlanOptions<E>,
): PathPlan<E> {
  const logic = machine as unknown as ActorLogic<AnyMachineSnapshot, E, unknown>
  const traversal: TraversalOptions<AnyMachineSnapshot, E, unknown> = {
    ...(options.input === undefined ? {} : { input: options.input }),
    events: options.events,
    filterEvents: options.filterEvents,
    serializeState: (snapshot) => options.signature(snapshot),
    limit: 20_000,
  }
  const stateNodes = getStateNodes(machine.root).filter((node) => node.always === undefined)
  const transitions: Transition[] = []
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((_, index) => {
        transitions.push({ source: node, eventType, index })
      })
    }
  }

  const taken = (snapshot: AnyMachineSnapshot, event: E): string[] =>
    (machine.getTransitionData(snapshot as never, event as never) ?? []).map((definition) => {
      const index =
        definition.source.transitions.get(definition.eventType)?.indexOf(definition) ?? -1
      return transitionKey({ source: definition.source, eventType: definition.eventType, index })
    })

  const coverageOf = (path: ModelPath<E>) => {
    const states = new Set<string>()
    const reached = new Set<string>()
    path.steps.forEach((step, i) => {
      for (const node of stateNodes) {
        if (step.state.matches(pathToValue(node.path) as never)) states.add(node.id)
      }
      const previous = path.steps[i - 1]
      if (previous) for (const key of taken(previous.state, step.event)) reached.add(key)
    })
    return { states, transitions: reached }
  }

  const shortest = getShortestPaths(logic, traversal)
  const toSignature = new Map(shortest.map((path) => [options.signature(path.state), path]))
  const cover: ModelPath<E>[] = []
  const adjacency = Object.entries(getAdjacencyMap(logic, traversal)) as Array<
    [string, AdjacencyValue<AnyMachineSnapshot, E>]
  >
  for (const [signature, { transitions: edges }] of adjacency) {
    const head = toSignature.get(signature)
    if (!head) continue
    for (const { event, state } of Object.values(edges)) {
      cover.push({ state, steps: [...head.steps, { state, event }], weight: head.weight + 1 })
    }
  }

  const candidates = [...shortest, ...cover].map((path) => ({ path, ...coverageOf(path) }))
  const reachedStates = new Set<string>()
  const reachedTransitions = new Set<string>()
  const paths: PathPlan<E>['paths'] = []
  for (;;) {
    let best: (typeof candidates)[number] | undefined
    let bestGain = 0
    for (const candidate of candidates) {
      let gain = 0
      for (const id of candidate.states) if (!reachedStates.has(id)) gain++
      for (const key of candidate.transitions) if (!reachedTransitions.has(key)) gain++
      // More new coverage first, then the shorter path.
      if (
        gain > bestGain ||
        (gain === bestGain && gain > 0 && best && candidate.path.weight < best.path.weight)
      ) {
        best = candidate
        bestGain = gain
      }
    }
    if (!best || bestGain === 0) break
    for (const id of best.states) reachedStates.add(id)
    for (const key of best.transitions) reachedTransitions.add(key)
    const events = best.path.steps.slice(1).map((step) => step.event.type)
    paths.push({
      path: best.path,
      description: `${events.join(' → ') || '(opens)'} ⇒ ${JSON.stringify(best.path.state.value)}`,
    })
  }
  return { paths, stateNodes, transitions, coverageOf, signature: options.signature }
}

/** The part of a registration snapshot the screen shows. */
export function registrationSignature(snapshot: AnyMachineSnapshot): string {
  const { error, verifiedPhone, invitation } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    error,
    verified: verifiedPhone !== null,
    loaded: invitation !== null,
  })
}

/** The part of a phone verification snapshot the registration screen shows. */
export function phoneSignature(snapshot: AnyMachineSnapshot): string {
  const { fieldsValid, target, sentTo, code, authyId, error, notice } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    fieldsValid,
    phone: target?.phone ?? null,
    sentTo: sentTo?.phone ?? null,
    code,
    hasCode: authyId !== null,
    error,
    notice,
  })
}

/** The registration's paths (loading, the child's end, submit and the server's answers). */
export function registerPersonnelPlan(): PathPlan<RegisterPersonnelModelEvent> {
  return planPaths(registerPersonnelMachine, {
    input: fixtures.input,
    events: registerPersonnelEvents,
    // Only events the state handles; the rest would be self-loops that test nothing.
    filterEvents: (snapshot, event) => snapshot.can(event as never),
    signature: registrationSignature,
  })
}

/**
 * The phone verification's paths as the registration screen allows them: the phone and code
 * inputs only take typing while enabled (no edits while a code call runs, the code only once
 * one was sent).
 */
export function phoneVerificationPlan(): PathPlan<PhoneModelEvent> {
  return planPaths(phoneVerificationMachine, {
    input: { verified: null },
    events: phoneEvents,
    filterEvents: (snapshot, event) => {
      if (!snapshot.can(event as never)) return false
      if (event.type === 'fields.change') {
        return !snapshot.matches('sendingCode') && !snapshot.matches('verifying')
      }
      if (event.type === 'code.change') return snapshot.matches('codeSent')
      return true
    },
    signature: phoneSignature,
  })
}
