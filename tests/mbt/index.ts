/**
 * The model-based testing engine: one way to turn a statechart into tests, for every flow.
 *
 * - **Model** ({@link Model}, `plan.ts`): the machine, its events with fixture payloads
 *   (including the actors' `xstate.done.actor.*` / `xstate.error.actor.*` answers and the
 *   `xstate.after.*` delays), the scenarios it starts from, the signature that tells states
 *   apart, what the screen allows, and a person's words for every state and event.
 * - **Graph** (`graph.ts`): state nodes, transitions, what a path reaches, the leaf state.
 * - **Planner** ({@link selectPaths}): shortest paths plus a transition cover, then the fewest
 *   that reach every state node and transition. Deterministic.
 * - **Flows** ({@link FlowSpec}, `qa.ts`): a screen's sections (its own model and the child flows
 *   it runs), with the words and plans the QA path documents and the browser replay need.
 * - **Replay** ({@link replayPath}): perform an event, then assert the screen, through a driver;
 *   the jsdom view tests and the Playwright replay are two drivers of the same paths.
 * - **Coverage** (`coverage.ts`), **QA documents** and **Mermaid diagrams** (`docs.ts`,
 *   `diagram.ts`).
 *
 * The engine names no flow. Flows live in `tests/flows/<flow>/`: `model.ts` (pure data, no
 * React, Testing Library or Playwright), `view.test.tsx` (the jsdom driver) and, for flows the
 * browser replays, `browser.spec.ts` (the Playwright driver); `tests/flows/registry.ts` lists
 * them, and `tests/flows/coverage.test.ts` fails when a machine in `machines/` has no model or a
 * state node or transition is not reached.
 *
 * ## When a machine changes
 *
 * 1. Run `npx vitest run tests/flows`: the coverage test names every state node and transition
 *    no path reaches any more, and the view test names every state without a screen check and
 *    every event without an action.
 * 2. In `tests/flows/<flow>/model.ts`: add new events (with fixture payloads; a new call's
 *    done and error answers; a new delay's `xstate.after.<delay>.<state id>`) to the event list,
 *    and a scenario if the new branch needs another start (stored progress, another input).
 *    Add what the new guards read, or the screen newly shows, to the signature, and what the
 *    screen cannot send to `allows`. Give each new state its `You see: …` words and each new event
 *    its words in `describeEvent`. Remove what the machine no longer has.
 * 3. In the drivers: `view.test.tsx` gets an action for each new event and a screen check for
 *    each new leaf state; `browser.spec.ts` the same with locators (and `StepPlan` words in the
 *    model where the real server needs other input than the fixtures).
 * 4. `npm run paths` rewrites `docs/paths` and `docs/machines` (a test fails while they are out
 *    of date); `npm run test:paths -- -g "<flow>"` replays the flow in Chromium.
 *
 * A new flow costs a `model.ts`, a `view.test.tsx` and a `browser.spec.ts`, and a line in the
 * registry; nothing in the engine.
 */
export type { CoverageRow, Reached } from './coverage.ts'
export {
  countPaths,
  coverageRows,
  formatCoverage,
  isComplete,
  modelsOf,
  pathsCoverage,
} from './coverage.ts'
export {
  generatedFilesOnDisk,
  machineCoverage,
  renderDocs,
  seenAt,
  stepText,
  writeDocs,
} from './docs.ts'
export type { Path, Reach } from './graph.ts'
export {
  activeNodes,
  answerActor,
  coverageOf,
  invokedActors,
  leafNode,
  pathToValue,
  stateNodes,
  transitionKey,
  transitions,
} from './graph.ts'
export type { CallAnswers, Model, ModelPath, Scenario } from './plan.ts'
export { describePath, selectPaths } from './plan.ts'
export type {
  FlowSpec,
  Host,
  QaFlow,
  QaPath,
  QaSection,
  QaStep,
  SectionSpec,
  StepPlan,
} from './qa.ts'
export {
  flowPaths,
  happened,
  nextAnswer,
  nextAnswerFails,
  pathCoverage,
  pathTitle,
  qaFlow,
} from './qa.ts'
export type { Driver } from './replay.ts'
export { describeStep, ReplayError, replayPath } from './replay.ts'
