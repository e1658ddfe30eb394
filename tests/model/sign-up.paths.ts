/**
 * Test paths of the sign-up wizard and its phone verification, generated from the real machines
 * with xstate/graph: for every edge of the adjacency map, the shortest path to its source plus
 * that edge (a transition cover), then the fewest of those paths that still reach every state
 * node and take every transition. The view-level model test replays the same paths.
 */
import type {
  ActorLogic,
  AnyMachineSnapshot,
  AnyStateMachine,
  AnyStateNode,
  EventObject,
} from 'xstate'
import {
  type AdjacencyValue,
  getAdjacencyMap,
  getShortestPaths,
  getStateNodes,
  type StatePath,
  type TraversalOptions,
} from 'xstate/graph'
import { isConfirmCodeValid } from '#domain/fields.ts'
import { phoneVerificationMachine } from '#machines/phone-verification/phone-verification.machine.ts'
import { signUpMachine } from '#machines/sign-up/sign-up.machine.ts'
import {
  type PhoneVerificationModelEvent,
  phoneVerificationEvents,
  phoneVerificationScenarios,
  type SignUpModelEvent,
  signUpEvents,
  signUpScenarios,
} from './sign-up.events.ts'

type Path = StatePath<AnyMachineSnapshot, EventObject>

/** A machine with the events and start situations its graph is walked with. */
export type Model = {
  name: string
  machine: AnyStateMachine
  events: readonly EventObject[]
  scenarios: readonly { name: string; input: unknown }[]
  /**
   * The part of a snapshot that tells states apart. Counters, timestamps and typed text are
   * left out, or the graph would never end.
   */
  signature: (snapshot: AnyMachineSnapshot) => string
  /**
   * Which events may be taken in a snapshot besides the machine's own `can` (a view-level model
   * leaves out what its screen cannot send there).
   */
  allows?: (snapshot: AnyMachineSnapshot, event: EventObject) => boolean
}

/** One generated path and the situation it starts from. */
export type ModelPath = { scenario: string; path: Path; description: string }

/** A transition of the machine: where it is defined, on which event, and its place there. */
type Transition = { source: AnyStateNode; eventType: string; index: number }

/** A readable key: `signUp.billing.editing --plan.termChange[0]-->`, `…--always[1]-->`. */
export function transitionKey({ source, eventType, index }: Transition): string {
  return `${source.id} --${eventType}[${index}]-->`
}

/** Every state node a snapshot can rest in (all but the root and eventless start nodes). */
export function modelStateNodes(machine: AnyStateMachine): AnyStateNode[] {
  return getStateNodes(machine.root).filter((node) => !isTransient(node))
}

function isTransient(node: AnyStateNode): boolean {
  return node.always !== undefined && node.always.length > 0 && node.transitions.size === 0
}

/** Every transition of the machine: `on`, `after`, done and error, and eventless ones. */
export function modelTransitions(machine: AnyStateMachine): string[] {
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

function pathToValue(path: string[]): unknown {
  return path.reduceRight<unknown>((inner, key) => (inner === null ? key : { [key]: inner }), null)
}

function activeNodeIds(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): string[] {
  return modelStateNodes(machine)
    .filter((node) => snapshot.matches(pathToValue(node.path) as never))
    .map((node) => node.id)
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

/** What a path reaches: state node ids and transition keys. */
export function coverageOf(
  machine: AnyStateMachine,
  path: Path,
): { states: Set<string>; transitions: Set<string> } {
  const states = new Set<string>()
  const transitions = new Set<string>()
  const first = path.steps[0]?.state ?? path.state
  for (const key of startTransitions(machine, first)) transitions.add(key)
  path.steps.forEach((step, i) => {
    for (const id of activeNodeIds(machine, step.state)) states.add(id)
    const previous = path.steps[i - 1]
    if (previous) {
      for (const key of takenTransitions(machine, previous.state, step.event)) transitions.add(key)
    }
  })
  for (const id of activeNodeIds(machine, path.state)) states.add(id)
  return { states, transitions }
}

/** Human-readable: the scenario, the events of a path, then where it ends. */
export function describePath(scenario: string, path: Path): string {
  const events = path.steps.slice(1).map((step) => step.event.type)
  return `${scenario}: ${events.join(' → ') || '(opens)'} ⇒ ${JSON.stringify(path.state.value)}`
}

function traversalOptions(
  model: Model,
  input: unknown,
): TraversalOptions<AnyMachineSnapshot, EventObject, unknown> {
  return {
    input,
    events: model.events,
    // Only events the state handles (the rest would be self-loops that test nothing), and none
    // once the machine has finished.
    filterEvents: (snapshot, event) =>
      snapshot.status === 'active' &&
      snapshot.can(event) &&
      (model.allows?.(snapshot, event) ?? true),
    serializeState: (snapshot) => model.signature(snapshot),
    // Errors serialise as {}: name the fixture so that two failures stay two edges.
    serializeEvent: (event) =>
      JSON.stringify(event, (_, value) =>
        value instanceof Error ? { name: value.name, message: value.message } : value,
      ),
    limit: 50_000,
  }
}

function logicOf(model: Model): ActorLogic<AnyMachineSnapshot, EventObject, unknown> {
  return model.machine as unknown as ActorLogic<AnyMachineSnapshot, EventObject, unknown>
}

/** The shortest paths of one scenario plus the transition cover of its adjacency map. */
export function candidatePaths(model: Model, input: unknown): Path[] {
  const options = traversalOptions(model, input)
  const logic = logicOf(model)
  const shortest = getShortestPaths(logic, options)
  const bySignature = new Map(shortest.map((path) => [model.signature(path.state), path]))
  const adjacency = getAdjacencyMap(logic, options)
  const cover: Path[] = []
  const entries = Object.entries(adjacency) as Array<
    [string, AdjacencyValue<AnyMachineSnapshot, EventObject>]
  >
  for (const [signature, { transitions }] of entries) {
    const head = bySignature.get(signature)
    if (!head) continue
    for (const { event, state } of Object.values(transitions)) {
      cover.push({ state, steps: [...head.steps, { state, event }], weight: head.weight + 1 })
    }
  }
  return [...shortest, ...cover]
}

/**
 * The selected paths of a model: greedily, the path that adds the most unreached state nodes
 * and transitions (the shorter on a tie), until nothing more can be added. Deterministic.
 */
export function selectPaths(model: Model): ModelPath[] {
  const candidates = model.scenarios.flatMap((scenario) =>
    candidatePaths(model, scenario.input).map((path) => ({
      scenario: scenario.name,
      path,
      ...coverageOf(model.machine, path),
    })),
  )
  const reachedStates = new Set<string>()
  const reachedTransitions = new Set<string>()
  const chosen: ModelPath[] = []
  for (;;) {
    let best: (typeof candidates)[number] | undefined
    let bestGain = 0
    for (const candidate of candidates) {
      let gain = 0
      for (const id of candidate.states) if (!reachedStates.has(id)) gain++
      for (const key of candidate.transitions) if (!reachedTransitions.has(key)) gain++
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
    chosen.push({
      scenario: best.scenario,
      path: best.path,
      description: describePath(best.scenario, best.path),
    })
  }
  return chosen
}

/** What the phone verification's view shows and its guards read. */
export function phoneVerificationSignature(snapshot: AnyMachineSnapshot): string {
  const { fieldsValid, target, sentTo, code, authyId, notice, error } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    fieldsValid,
    phone: target?.phone ?? null,
    sentTo: sentTo?.phone ?? null,
    codeValid: isConfirmCodeValid(code),
    hasAuthyId: authyId !== null,
    notice,
    error,
  })
}

/** What the wizard's guards read, and the alert its view shows. */
export function signUpSignature(snapshot: AnyMachineSnapshot): string {
  const { context } = snapshot
  return JSON.stringify({
    value: snapshot.value,
    verified: context.verifiedPhone !== null,
    client: context.clientDetails !== null,
    practice: context.practiceDetails?.e_record ?? null,
    billing: context.billingAddress !== null,
    plans: context.plans.length > 0,
    paid: context.stripeId !== null,
    alert: context.alert?.message ?? null,
    coupon: context.coupon?.id ?? null,
  })
}

/** The phone verification's model. */
export const phoneVerificationModel: Model = {
  name: 'phoneVerification',
  machine: phoneVerificationMachine,
  events: phoneVerificationEvents satisfies PhoneVerificationModelEvent[],
  scenarios: phoneVerificationScenarios,
  signature: phoneVerificationSignature,
}

/** The wizard's model. */
export const signUpModel: Model = {
  name: 'signUp',
  machine: signUpMachine,
  events: signUpEvents satisfies SignUpModelEvent[],
  scenarios: signUpScenarios,
  signature: signUpSignature,
}

/**
 * What the wizard's screen can send in a snapshot. The graph otherwise takes events no person
 * can cause there: a draft where no form is shown, dismissing an alert that is not shown, or
 * removing a promo code that is not applied.
 */
export function wizardAllows(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  const e = event as SignUpModelEvent
  if (e.type === 'form.draft') return snapshot.matches({ clientDetails: 'editing' })
  if (e.type === 'alert.dismiss') return snapshot.context.alert !== null
  // Remove shows next to an applied promo code only.
  if (e.type === 'promo.clear') return snapshot.context.coupon !== null
  if (e.type === 'xstate.done.actor.phoneVerification')
    return snapshot.context.verifiedPhone === null
  return true
}

/** The phone verification can only be typed into while its inputs are open. */
export function phoneAllows(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  if (event.type === 'fields.change')
    return snapshot.matches('idle') || snapshot.matches('codeSent')
  if (event.type === 'code.change') return snapshot.matches('codeSent')
  return true
}

/**
 * The wizard as its screen drives it: the paths the view-level model test replays through the
 * views and the QA path replay (issue 6) replays in the browser.
 */
export const signUpViewModel: Model = { ...signUpModel, allows: wizardAllows }

/** The phone verification as step 1 of the wizard drives it (see {@link signUpViewModel}). */
export const phoneVerificationViewModel: Model = { ...phoneVerificationModel, allows: phoneAllows }
