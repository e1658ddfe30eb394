/**
 * Flows and their QA paths. A flow is one screen a person goes through; each of its sections is
 * one model as that screen drives it (a flow's own machine, and the child flows it runs, such as
 * a phone verification). The paths of a section are the model's selected paths with what the
 * running product needs besides the model (how each situation starts, the few inputs that differ
 * from the model's fixtures, which answers come from request interception and why). The view
 * tests, the path documents and the browser replay all read these same lists.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate'
import { answerActor, coverageOf, type Reach } from './graph.ts'
import { type Model, selectPaths } from './plan.ts'

/** Which name the browser opens the app under: this machine, or a name that is not it. */
export type Host = 'local' | 'remote'

/** One step of a path: the event, and the state the machine is in after it. */
export type QaStep = { event: EventObject; state: AnyMachineSnapshot }

/** What the running product needs for one step besides the model's words. */
export type StepPlan = {
  /** Words for the path file where the running product needs other input than the model's. */
  text?: string
  /** What the running product needs beforehand, in a person's words. */
  note?: string
  /** Why this step's answer comes from request interception rather than the server. */
  intercepted?: string
  /** What the screen shows instead of the machine's state, where the route moves on. */
  seen?: string
}

/** A generated path with everything the path file and the replays need. */
export type QaPath = {
  flow: string
  section: string
  model: Model
  /** 1-based, across the sections of its flow (the screenshot is `<flow>-<number>.png`). */
  number: number
  /** The scenario as this screen names it. */
  scenario: string
  /** The model's scenario the path starts from. */
  modelScenario: string
  /** The machine's input for that scenario. */
  input: unknown
  /** `steps[0]` is where the path starts (its event is the machine's start). */
  steps: QaStep[]
  host: Host
  start: string
  /** Request interception the whole path needs (a third-party script), and why. */
  intercepted?: string
  plans: StepPlan[]
}

/** A model as one screen drives it: what the flow author writes. */
export type SectionSpec = {
  key: string
  model: Model
  title: string
  intro: string
  /** The model's scenarios this screen can start from (all when left out). */
  scenarios?: readonly string[]
  /** The scenario's name on this screen, where it reads differently from the model's. */
  scenarioName?: (name: string) => string
  host: (path: QaPath) => Host
  /** How a person gets to the path's start, in words (and what the replay does for it). */
  start: (path: QaPath) => string
  step?: (path: QaPath, i: number) => StepPlan
  intercepted?: (path: QaPath) => string | undefined
  /**
   * What else the screen shows after step `i` that the state's words leave out (a banner, an
   * alert, a field's error): only from what the graph tells states apart by, and the events.
   */
  extras?: (path: QaPath, i: number) => string[]
}

/** A flow: its path file, its sections and the view test that replays them. */
export type FlowSpec = {
  /** Kebab-case: `docs/paths/<id>.md`, `tests/flows/<id>/`. */
  id: string
  title: string
  intro: string
  sections: readonly SectionSpec[]
  /** The jsdom view test that replays these paths (named in the path file). */
  viewTest: string
  /** Whether the browser replay (`npm run test:paths`) replays this flow. */
  browser: boolean
}

/** A section with its paths. */
export type QaSection = SectionSpec & { paths: QaPath[] }

/** A flow with its paths. */
export type QaFlow = Omit<FlowSpec, 'sections'> & { sections: QaSection[] }

/** The first answer of `actor` after step `i`, if the path has one. */
export function nextAnswer(path: QaPath, i: number, actor: string): EventObject | undefined {
  return path.steps.slice(i + 1).find((step) => answerActor(step.event) === actor)?.event
}

/** Whether the answer of `actor` after step `i` is a failure (or a phone not verified). */
export function nextAnswerFails(path: QaPath, i: number, actor: string): boolean {
  const answer = nextAnswer(path, i, actor) as (EventObject & { output?: unknown }) | undefined
  if (!answer) return false
  if (answer.type.startsWith('xstate.error.')) return true
  const output = answer.output as { verified?: boolean } | undefined
  return output?.verified === false
}

/** Whether the path had an event of `type` up to step `i`. */
export function happened(path: QaPath, i: number, type: string): boolean {
  return path.steps.slice(1, i + 1).some((step) => step.event.type === type)
}

function buildSection(flow: string, spec: SectionSpec, first: number): QaSection {
  const paths = selectPaths(spec.model, spec.scenarios).map((selected, index): QaPath => {
    const path: QaPath = {
      flow,
      section: spec.key,
      model: spec.model,
      number: first + index,
      scenario: spec.scenarioName?.(selected.scenario) ?? selected.scenario,
      modelScenario: selected.scenario,
      input: spec.model.scenarios.find((s) => s.name === selected.scenario)?.input,
      steps: selected.path.steps.map((step) => ({ event: step.event, state: step.state })),
      host: 'local',
      start: '',
      plans: [],
    }
    path.host = spec.host(path)
    path.start = spec.start(path)
    const intercepted = spec.intercepted?.(path)
    if (intercepted) path.intercepted = intercepted
    path.plans = path.steps.map((_, i) => (i === 0 ? {} : (spec.step?.(path, i) ?? {})))
    return path
  })
  return { ...spec, paths }
}

const built = new Map<FlowSpec, QaFlow>()

/** A flow with its generated paths, numbered across its sections (built once). */
export function qaFlow(spec: FlowSpec): QaFlow {
  const known = built.get(spec)
  if (known) return known
  const sections: QaSection[] = []
  let next = 1
  for (const section of spec.sections) {
    const withPaths = buildSection(spec.id, section, next)
    next += withPaths.paths.length
    sections.push(withPaths)
  }
  const flow = { ...spec, sections }
  built.set(spec, flow)
  return flow
}

/** Every path of a flow. */
export function flowPaths(flow: QaFlow): QaPath[] {
  return flow.sections.flatMap((section) => section.paths)
}

/** The test title of a path in the replays: `<flow> <number>: <scenario>`. */
export function pathTitle(path: QaPath): string {
  return `${path.flow} ${path.number}: ${path.scenario}`
}

/** What a path reaches of its model's machine. */
export function pathCoverage(path: QaPath): Reach {
  return coverageOf(path.model.machine, path)
}
