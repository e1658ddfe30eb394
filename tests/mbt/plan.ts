/**
 * The flow model and the path planner. A model is a machine with the events (fixture payloads,
 * the actors' done and error answers, the delays) and the start situations its graph is walked
 * with, the part of a snapshot that tells states apart, and a person's words for its states and
 * events. The planner walks it with xstate/graph: the shortest path to every state plus, for every
 * edge of the adjacency map, the shortest path to its source and that edge (a transition cover);
 * then, greedily, the fewest of those paths that still reach every state node and take every
 * transition. Deterministic for a given model.
 */
import {
  type ActorLogic,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  initialTransition,
  transition,
} from 'xstate'
import {
  type AdjacencyValue,
  getAdjacencyMap,
  getShortestPaths,
  type TraversalOptions,
} from 'xstate/graph'
import { coverageOf, type Path } from './graph.ts'

/** A situation the machine starts from: its name and the machine's input. */
export type Scenario = { name: string; input: unknown }

/** A machine with what the engine walks it with, and a person's words for it. */
export type Model = {
  /** The machine's id (`signUp`); coverage and diagrams are keyed by it. */
  name: string
  /** A person's name for it: `Sign-up wizard`. */
  title: string
  /** Where the machine is defined, for the documents: file, export name, diagram file name. */
  source: { file: string; name: string; doc: string }
  machine: AnyStateMachine
  /**
   * Every event with fixture payloads. An explicit list replaces xstate/graph's own event
   * discovery, so the actors' answers (`xstate.done.actor.<id>` with `output`,
   * `xstate.error.actor.<id>` with `error`) and the delays (`xstate.after.<delay>.<state id>`)
   * are listed too.
   */
  events: readonly EventObject[]
  scenarios: readonly Scenario[]
  /**
   * The part of a snapshot that tells states apart (what the screen shows and the guards read).
   * Counters, timestamps and typed text are left out, or the graph would never end.
   */
  signature: (snapshot: AnyMachineSnapshot) => string
  /**
   * Which events may be taken in a snapshot besides the machine's own `can` (the screen cannot
   * send a draft where no form is shown, nor dismiss an alert that is not there).
   */
  allows?: (snapshot: AnyMachineSnapshot, event: EventObject) => boolean
  /** What a person sees in each state, by state node id: `You see: …`. */
  states: Readonly<Record<string, string>>
  /** What the person does, or what happens, for an event with its payload. */
  describeEvent: (event: EventObject) => string
  /**
   * Paths written by hand instead of planned, for a machine whose snapshot cannot tell what the
   * product needs before an event (a chart of statuses without context: "Keep membership" needs a
   * cancellation set before, though the chart takes it in any active membership), so that the
   * planner's shortest paths would take steps no person can, and a path per self-loop. Each is
   * walked on the machine (every event must be taken there, and allowed); the coverage test still
   * asks that together they reach every state node and take every transition.
   */
  journeys?: readonly { scenario: string; events: readonly EventObject[] }[]
}

/**
 * The two answers of the call `Id` as events of a model: its output (`xstate.done.actor.<Id>`)
 * or its failure (`xstate.error.actor.<Id>`).
 */
export type CallAnswers<Id extends string, Output> =
  | { type: `xstate.done.actor.${Id}`; output: Output }
  | { type: `xstate.error.actor.${Id}`; error: Error }

/** One generated path and the scenario it starts from. */
export type ModelPath = { scenario: string; path: Path; description: string }

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

/** The shortest paths of one scenario plus the transition cover of its adjacency map. */
function candidatePaths(model: Model, input: unknown): Path[] {
  const options = traversalOptions(model, input)
  // The graph also feeds the actors' answers and the delays, which a machine's event type leaves out.
  const logic = model.machine as unknown as ActorLogic<AnyMachineSnapshot, EventObject, unknown>
  const shortest = getShortestPaths(logic, options)
  const bySignature = new Map(shortest.map((path) => [model.signature(path.state), path]))
  const adjacency = Object.entries(getAdjacencyMap(logic, options)) as Array<
    [string, AdjacencyValue<AnyMachineSnapshot, EventObject>]
  >
  const cover: Path[] = []
  for (const [signature, { transitions }] of adjacency) {
    const head = bySignature.get(signature)
    if (!head) continue
    for (const { event, state } of Object.values(transitions)) {
      cover.push({ state, steps: [...head.steps, { state, event }], weight: head.weight + 1 })
    }
  }
  return [...shortest, ...cover]
}

/** A journey walked on the machine: each event must be one the snapshot takes and allows. */
function journeyPath(model: Model, input: unknown, events: readonly EventObject[]): Path {
  const machine = model.machine
  const [start] = initialTransition(machine, input)
  const path: Path = {
    state: start,
    steps: [{ state: start, event: { type: 'xstate.init', input } as EventObject }],
    weight: 0,
  }
  for (const event of events) {
    const from = path.state
    if (!from.can(event) || !(model.allows?.(from, event) ?? true)) {
      throw new Error(
        `${model.name}: a journey sends ${event.type} in ${JSON.stringify(from.value)}, which the machine does not take there`,
      )
    }
    const [next] = transition(machine, from, event)
    path.steps.push({ state: next, event })
    path.state = next
    path.weight++
  }
  return path
}

const selected = new Map<string, ModelPath[]>()

/**
 * The selected paths of a model (of the named scenarios only, when given): greedily, the path
 * that adds the most unreached state nodes and transitions (the shorter on a tie), until nothing
 * more can be added. Deterministic; computed once per model and scenario list.
 */
export function selectPaths(model: Model, scenarios?: readonly string[]): ModelPath[] {
  const key = `${model.name}:${scenarios?.join('|') ?? '*'}`
  const known = selected.get(key)
  if (known) return known
  const chosenScenarios = model.scenarios.filter((s) => !scenarios || scenarios.includes(s.name))
  if (model.journeys) {
    const written = model.journeys
      .filter((journey) => chosenScenarios.some((s) => s.name === journey.scenario))
      .map((journey): ModelPath => {
        const input = chosenScenarios.find((s) => s.name === journey.scenario)?.input
        const path = journeyPath(model, input, journey.events)
        return {
          scenario: journey.scenario,
          path,
          description: describePath(journey.scenario, path),
        }
      })
    selected.set(key, written)
    return written
  }
  const candidates = chosenScenarios.flatMap((scenario) =>
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
      for (const k of candidate.transitions) if (!reachedTransitions.has(k)) gain++
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
    for (const k of best.transitions) reachedTransitions.add(k)
    chosen.push({
      scenario: best.scenario,
      path: best.path,
      description: describePath(best.scenario, best.path),
    })
  }
  selected.set(key, chosen)
  return chosen
}
