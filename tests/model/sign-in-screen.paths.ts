/**
 * Test paths of the sign-in screen, generated from the real machine with xstate/graph: for every
 * edge of the adjacency map the shortest path to its source plus that edge (a transition cover),
 * then the fewest of those paths that still reach every state node and take every transition.
 */
import type { ActorLogic, AnyMachineSnapshot, AnyStateNode } from 'xstate'
import {
  type AdjacencyValue,
  getAdjacencyMap,
  getShortestPaths,
  getStateNodes,
  type StatePath,
  type TraversalOptions,
} from 'xstate/graph'
import {
  type SignInScreenInput,
  signInScreenMachine,
} from '#machines/auth/sign-in-screen.machine.ts'
import {
  type SignInScreenModelEvent,
  type SignInScreenScenario,
  signInScreenEvents,
  signInScreenScenarios,
} from './sign-in-screen.events.ts'

type Snapshot = ReturnType<typeof signInScreenMachine.transition>
type Path = StatePath<Snapshot, SignInScreenModelEvent>
type Transition = { source: AnyStateNode; eventType: string; index: number }

// The graph also feeds the actors' answers and the delay, which the machine's event type leaves out.
const graphLogic = signInScreenMachine as unknown as ActorLogic<
  Snapshot,
  SignInScreenModelEvent,
  SignInScreenInput
>

/** One generated path and the situation it starts from. */
export type SignInScreenPath = { scenario: SignInScreenScenario; path: Path; description: string }

/**
 * The part of a snapshot the screen shows: the state and the banners. The attempt counter is
 * left out, or every failed sign-in would be a new state and the graph would never end.
 */
export function screenSignature(snapshot: AnyMachineSnapshot): string {
  const { error, notice, captchaError, captchaToken } = snapshot.context
  return JSON.stringify({
    value: snapshot.value,
    error,
    notice,
    captchaError,
    hasToken: captchaToken !== null,
  })
}

function traversalOptions(
  input: SignInScreenInput,
): TraversalOptions<Snapshot, SignInScreenModelEvent, SignInScreenInput> {
  return {
    input,
    events: signInScreenEvents,
    // Only events the state handles (the rest would be self-loops that test nothing), and captcha
    // events only where the widget is shown.
    filterEvents: (snapshot, event) =>
      snapshot.can(event as never) &&
      (!event.type.startsWith('captcha.') || snapshot.context.captchaRequired),
    serializeState: (snapshot) => screenSignature(snapshot),
    limit: 10_000,
  }
}

/** Every state node of the machine except the root and the eventless `opening` step. */
export function modelStateNodes(): AnyStateNode[] {
  return getStateNodes(signInScreenMachine.root).filter((node) => node.always === undefined)
}

/** Every event-driven transition of the machine (its `on`, `after`, done and error). */
export function modelTransitions(): Transition[] {
  const all: Transition[] = []
  for (const node of [signInScreenMachine.root, ...getStateNodes(signInScreenMachine.root)]) {
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((_, index) => {
        all.push({ source: node, eventType, index })
      })
    }
  }
  return all
}

/** A readable key of a transition: `signInScreen.signIn.editing --signInForm.submit[0]-->`. */
export function transitionKey({ source, eventType, index }: Transition): string {
  return `${source.id} --${eventType}[${index}]-->`
}

/** The transition the machine takes for `event` in `snapshot`. */
function takenTransitions(snapshot: Snapshot, event: SignInScreenModelEvent): string[] {
  const taken = signInScreenMachine.getTransitionData(snapshot, event as never) ?? []
  return taken.map((definition) => {
    const index = definition.source.transitions.get(definition.eventType)?.indexOf(definition) ?? -1
    return transitionKey({ source: definition.source, eventType: definition.eventType, index })
  })
}

/** State node ids a snapshot is in (its leaves and their ancestors). */
function activeNodeIds(snapshot: Snapshot): string[] {
  return modelStateNodes()
    .filter((node) => snapshot.matches(pathToValue(node.path) as never))
    .map((node) => node.id)
}

function pathToValue(path: string[]): unknown {
  return path.reduceRight<unknown>((inner, key) => (inner === null ? key : { [key]: inner }), null)
}

/** What a path reaches: state node ids and transition keys. */
export function coverageOf(path: Path): { states: Set<string>; transitions: Set<string> } {
  const states = new Set<string>()
  const transitions = new Set<string>()
  path.steps.forEach((step, i) => {
    for (const id of activeNodeIds(step.state)) states.add(id)
    const previous = path.steps[i - 1]
    if (previous) {
      for (const key of takenTransitions(previous.state, step.event)) transitions.add(key)
    }
  })
  return { states, transitions }
}

/** Human-readable: the events of a path, then where it ends. */
export function describePath(scenario: SignInScreenScenario, path: Path): string {
  const events = path.steps.slice(1).map((step) => step.event.type)
  return `${scenario.name}: ${events.join(' → ') || '(opens)'} ⇒ ${JSON.stringify(path.state.value)}`
}

/** All candidate paths of one scenario: shortest paths plus the transition cover. */
function candidatePaths(scenario: SignInScreenScenario): Path[] {
  const options = traversalOptions(scenario.input)
  const shortest = getShortestPaths(graphLogic, options)
  const toSignature = new Map(shortest.map((path) => [screenSignature(path.state), path]))
  const adjacency = getAdjacencyMap(graphLogic, options)
  const cover: Path[] = []
  const entries = Object.entries(adjacency) as Array<
    [string, AdjacencyValue<Snapshot, SignInScreenModelEvent>]
  >
  for (const [signature, { transitions }] of entries) {
    const head = toSignature.get(signature)
    if (!head) continue
    for (const { event, state } of Object.values(transitions)) {
      cover.push({
        state,
        steps: [...head.steps, { state, event }],
        weight: head.weight + 1,
      })
    }
  }
  return [...shortest, ...cover]
}

/**
 * The selected paths: greedily, the path that adds the most unreached state nodes and
 * transitions, until nothing more can be added. Deterministic for a given machine.
 */
export function signInScreenPaths(): SignInScreenPath[] {
  const candidates = signInScreenScenarios.flatMap((scenario) =>
    candidatePaths(scenario).map((path) => ({ scenario, path, ...coverageOf(path) })),
  )
  const reachedStates = new Set<string>()
  const reachedTransitions = new Set<string>()
  const chosen: SignInScreenPath[] = []
  for (;;) {
    let best: (typeof candidates)[number] | undefined
    let bestGain = 0
    for (const candidate of candidates) {
      let gain = 0
      for (const id of candidate.states) if (!reachedStates.has(id)) gain++
      for (const key of candidate.transitions) if (!reachedTransitions.has(key)) gain++
      // Prefer more new coverage, then shorter paths.
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
