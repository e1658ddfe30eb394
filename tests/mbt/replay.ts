/**
 * Replaying a path through a driver: open the path's start, check the screen, then for every
 * step perform its event (a person's action, or a call's answer) and check the screen again. The
 * engine knows no screen: a jsdom driver (user-event, Testing Library) and a Playwright driver
 * (locators, the real server) both replay the same paths through this loop.
 */
import type { QaPath, QaStep } from './qa.ts'

/** What a flow's screen supplies to replay its paths. */
export type Driver<C> = {
  /** Opens the path's start situation; returns what the other two need (a harness, a page). */
  open: (path: QaPath) => Promise<C>
  /** Performs the event of step `i` (1-based; step 0 is the start). */
  perform: (context: C, i: number) => Promise<void>
  /** Checks that the screen shows the state after step `i`. */
  expect: (context: C, i: number) => Promise<void>
}

/** A failure while replaying, with the step it happened at. */
export class ReplayError extends Error {
  readonly step: number

  constructor(path: QaPath, step: number, cause: unknown) {
    super(
      `${describeStep(path, step)}: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    )
    this.name = 'ReplayError'
    this.step = step
    if (cause instanceof Error && cause.stack) this.stack = cause.stack
  }
}

/** `the start`, or `step 3 (promo.apply)`. */
export function describeStep(path: QaPath, i: number): string {
  const step = path.steps[i] as QaStep | undefined
  return i === 0 ? 'the start' : `step ${i} (${step?.event.type ?? '?'})`
}

/**
 * Replays `path` with `driver`; returns the driver's context. A failure is rethrown as a
 * {@link ReplayError} that names the step.
 */
export async function replayPath<C>(path: QaPath, driver: Driver<C>): Promise<C> {
  let current = 0
  try {
    const context = await driver.open(path)
    await driver.expect(context, 0)
    for (let i = 1; i < path.steps.length; i++) {
      current = i
      await driver.perform(context, i)
      await driver.expect(context, i)
    }
    return context
  } catch (error) {
    throw new ReplayError(path, current, error)
  }
}
