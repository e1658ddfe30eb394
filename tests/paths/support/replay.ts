/**
 * Replays one QA path in the browser: for every step it performs the event (a person's action, or
 * lets the server's answer through), then checks that the screen shows the state the machine is
 * in. Calls that a busy state makes are held in the browser (request interception that only
 * waits) until the busy screen has been checked; the answer then comes from the real server, or,
 * for the steps the path file marks, from interception. A failing step is annotated and
 * photographed (`.tmp/paths/<flow>-<n>.png`) for the reporter.
 */
import { mkdirSync } from 'node:fs'
import type { APIRequestContext, Page, Request, Route, TestInfo } from '@playwright/test'
import type { EventObject } from 'xstate'
import { test } from '#tests/e2e/support/fixtures.ts'
import {
  answerActor,
  type FlowSpec,
  flowPaths,
  invokedActors,
  pathCoverage,
  pathTitle,
  type QaPath,
  type QaStep,
  qaFlow,
  ReplayError,
  replayPath as replayWith,
} from '#tests/mbt/index.ts'

/** Where failure screenshots go (relative to the project). */
export const SHOTS_DIR = '.tmp/paths'

/** The request of each call a state makes, by the machine's actor id. */
const CALLS: Record<string, { method: string; url: RegExp }> = {
  signIn: { method: 'POST', url: /\/api\/auth\/local$/ },
  requestPasswordReset: { method: 'POST', url: /\/api\/auth\/forgot-password$/ },
  resetPassword: { method: 'POST', url: /\/api\/auth\/reset-password$/ },
  // The phone verification's code, and the checkout's code to the patient (both `sendCode`).
  sendCode: { method: 'POST', url: /\/api\/(auth\/get-code|patients\/\d+\/redemption-code)$/ },
  verifyCode: { method: 'POST', url: /\/api\/auth\/verify-code$/ },
  checkAvailability: { method: 'POST', url: /\/api\/auth\/check-email$/ },
  loadPlans: { method: 'GET', url: /\/api\/practice\/plans$/ },
  lookupCoupon: { method: 'GET', url: /\/api\/practice\/coupons\/[^/]+$/ },
  // The card is tokenised first; the payment call that follows is not held.
  lockPayment: { method: 'POST', url: /\/api\/payments\/test-tokens$/ },
  submitSignUp: { method: 'POST', url: /\/api\/auth\/local\/register$/ },
  loadInvitation: { method: 'GET', url: /\/api\/personnel\/[^/]+$/ },
  registerPersonnel: { method: 'POST', url: /\/api\/auth\/personnel\/register$/ },
  invitePersonnel: { method: 'POST', url: /\/api\/personnel$/ },
  resendInvitation: { method: 'POST', url: /\/api\/personnel\/[^/]+\/resend$/ },
  revokeInvitation: { method: 'DELETE', url: /\/api\/personnel\/[^/]+$/ },
  previewVisit: { method: 'POST', url: /\/api\/visits\/preview$/ },
  recordVisit: { method: 'POST', url: /\/api\/visits$/ },
  approveVisit: { method: 'POST', url: /\/api\/visits\/approval$/ },
  checkCode: { method: 'POST', url: /\/api\/patients\/\d+\/redemption-code\/check$/ },
  undoVisit: { method: 'POST', url: /\/api\/visits\/\d+\/undo$/ },
  previewChunk: { method: 'POST', url: /\/api\/patients\/import\/preview$/ },
  importChunk: { method: 'POST', url: /\/api\/patients\/import$/ },
  sendWalletCode: { method: 'POST', url: /\/api\/wallet\/\d+\/code$/ },
  openWalletSession: { method: 'POST', url: /\/api\/wallet\/\d+\/session$/ },
}

/** An answer given by interception instead of the server. */
export type Fulfil = { status: number; body: unknown }

/** The server's JSON error shape. */
export function apiError(status: number, name: string, message: string): Fulfil {
  return { status, body: { error: { status, name, message, details: {} } } }
}

type Held = { route: Route; request: Request }

/**
 * Holds the calls of busy states. `arm(actor)` makes the next matching request wait; `held(actor)`
 * resolves once it arrived; `release(actor)` lets it through to the server, or answers it.
 * Requests of actors not armed pass untouched. An answer given with `repeat` is also given to the
 * automatic retries of that call until the actor is armed again.
 */
export class Gate {
  private armed = new Set<string>()
  private waiting = new Map<string, Held>()
  private arrivals = new Map<string, Array<(held: Held) => void>>()
  private repeating = new Map<string, Fulfil>()

  private readonly page: Page

  constructor(page: Page) {
    this.page = page
  }

  async install(): Promise<void> {
    await this.page.route('**/api/**', (route, request) => this.handle(route, request))
  }

  private actorOf(request: Request): string | undefined {
    const url = new URL(request.url()).pathname
    return Object.entries(CALLS).find(
      ([, call]) => call.method === request.method() && call.url.test(url),
    )?.[0]
  }

  private async handle(route: Route, request: Request): Promise<void> {
    const actor = this.actorOf(request)
    const repeat = actor ? this.repeating.get(actor) : undefined
    if (actor && repeat) {
      await route.fulfill({ status: repeat.status, json: repeat.body })
      return
    }
    if (!actor || !this.armed.has(actor)) {
      await route.fallback()
      return
    }
    this.armed.delete(actor)
    const held = { route, request }
    const listeners = this.arrivals.get(actor) ?? []
    this.arrivals.delete(actor)
    if (listeners.length > 0) for (const listener of listeners) listener(held)
    this.waiting.set(actor, held)
  }

  /** The next request of `actor` waits for {@link release}. */
  arm(actor: string): void {
    if (!CALLS[actor]) throw new Error(`no request known for the call ${actor}`)
    this.repeating.delete(actor)
    this.armed.add(actor)
  }

  /** Resolves once the armed request of `actor` arrived. */
  async held(actor: string, timeout = 15_000): Promise<Request> {
    const already = this.waiting.get(actor)
    if (already) return already.request
    return new Promise<Request>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the page did not call ${actor} within ${timeout} ms`)),
        timeout,
      )
      const listeners = this.arrivals.get(actor) ?? []
      listeners.push((held) => {
        clearTimeout(timer)
        resolve(held.request)
      })
      this.arrivals.set(actor, listeners)
    })
  }

  /** Lets the held request of `actor` through, or answers it (and its retries, with `repeat`). */
  async release(actor: string, answer?: Fulfil & { repeat?: boolean }): Promise<void> {
    await this.held(actor)
    const held = this.waiting.get(actor)
    this.waiting.delete(actor)
    if (!held) throw new Error(`no held request of ${actor}`)
    if (!answer) {
      await held.route.fallback()
      return
    }
    if (answer.repeat) this.repeating.set(actor, answer)
    await held.route.fulfill({ status: answer.status, json: answer.body })
  }

  /** Lets everything still held through (end of a path). */
  async drain(): Promise<void> {
    this.armed.clear()
    for (const [actor, held] of this.waiting) {
      this.waiting.delete(actor)
      await held.route.fallback().catch(() => undefined)
    }
  }
}

/**
 * Lets the call whose answer `event` is (`xstate.done.actor.<id>` or `xstate.error.actor.<id>`)
 * through to the real server: how a replay performs an answer it has no words of its own for.
 */
export async function letAnswerThrough(gate: Gate, event: EventObject): Promise<void> {
  const actor = answerActor(event)
  if (!actor) throw new Error(`no action for ${event.type}`)
  await gate.release(actor)
}

/** What a flow's spec supplies to replay its paths. */
export type Replayer<C> = {
  /** Opens the path's start situation (setup through the API, the first page). */
  open: (context: C) => Promise<void>
  /** Performs the event of step `i`. */
  perform: (context: C, i: number) => Promise<void>
  /** Checks the screen for the state after step `i`. */
  expectStep: (context: C, i: number) => Promise<void>
}

/** What every replay has: the page, the API, the path and its call gate. */
export type ReplayContext = {
  page: Page
  request: APIRequestContext
  path: QaPath
  gate: Gate
  testInfo: TestInfo
}

/** The replay's context with the modelled state after step `i`: what a screen check reads. */
export function atStep<C extends ReplayContext>(
  context: C,
  i: number,
): C & { state: QaStep['state'] } {
  return { ...context, state: (context.path.steps[i] as QaStep).state }
}

/** The annotations the reporter reads. */
export const ANNOTATIONS = {
  path: 'qa-path',
  failedStep: 'qa-failed-step',
  screenshot: 'qa-screenshot',
  coverage: 'qa-coverage',
} as const

/** The calls a snapshot's leaf state makes that the gate can hold (not its child flows). */
function heldCalls(path: QaPath, i: number): string[] {
  const state = (path.steps[i] as QaStep).state
  return invokedActors(path.model.machine, state).filter((actor) => CALLS[actor] !== undefined)
}

/**
 * Replays `context.path` with `replayer` through the engine: opens it, then performs and checks
 * every step, holding the call each busy state makes until its screen has been checked. Records
 * the path's coverage of its machine for the reporter; on a failure, the failing step and a
 * screenshot.
 */
export async function replayPath<C extends ReplayContext>(
  context: C,
  replayer: Replayer<C>,
): Promise<void> {
  const { path, gate, testInfo, page } = context
  testInfo.annotations.push({
    type: ANNOTATIONS.path,
    description: JSON.stringify({ flow: path.flow, number: path.number, model: path.model.name }),
  })
  try {
    await replayWith(path, {
      open: async () => {
        await gate.install()
        for (const actor of heldCalls(path, 0)) gate.arm(actor)
        await replayer.open(context)
        return context
      },
      perform: async (_, i) => {
        // The call the next state makes is held, so that its busy screen can be seen.
        const answered = answerActor((path.steps[i] as QaStep).event)
        for (const actor of heldCalls(path, i)) if (actor !== answered) gate.arm(actor)
        await replayer.perform(context, i)
      },
      expect: (_, i) => replayer.expectStep(context, i),
    })
    testInfo.annotations.push({
      type: ANNOTATIONS.coverage,
      description: JSON.stringify(serialise(pathCoverage(path))),
    })
  } catch (error) {
    mkdirSync(SHOTS_DIR, { recursive: true })
    const shot = `${SHOTS_DIR}/${path.flow}-${path.number}${testInfo.retry > 0 ? `-try${testInfo.retry + 1}` : ''}.png`
    await page.screenshot({ path: shot, fullPage: true }).catch(() => undefined)
    const step = error instanceof ReplayError ? error.step : 0
    testInfo.annotations.push({
      type: ANNOTATIONS.failedStep,
      description: step === 0 ? 'the start' : `step ${step} (${path.steps[step]?.event.type})`,
    })
    testInfo.annotations.push({ type: ANNOTATIONS.screenshot, description: shot })
    throw error instanceof ReplayError && error.cause instanceof Error ? error.cause : error
  } finally {
    await gate.drain()
  }
}

function serialise(coverage: { states: Set<string>; transitions: Set<string> }) {
  return { states: [...coverage.states], transitions: [...coverage.transitions] }
}

/**
 * Registers one Playwright test per path of `spec` (titled as the path files name them), each
 * replayed by its section's replayer in a context `contextFor` makes from the page and the path.
 */
export function replayFlow<C extends ReplayContext>(
  spec: FlowSpec,
  replayers: Record<string, Replayer<C>>,
  contextFor: (base: ReplayContext) => C,
): void {
  test.describe(`QA paths: ${spec.title.toLowerCase()}`, () => {
    for (const path of flowPaths(qaFlow(spec))) {
      test(pathTitle(path), async ({ page, request }, testInfo) => {
        const replayer = replayers[path.section]
        if (!replayer) throw new Error(`no replayer for the section ${path.section}`)
        await replayPath(
          contextFor({ page, request, path, gate: new Gate(page), testInfo }),
          replayer,
        )
      })
    }
  })
}
