import { NextechFailure } from './failures.ts'

/** Nextech's documented limit: 20 requests a second per endpoint per API user. */
export const NEXTECH_REQUESTS_PER_SECOND = 20

/** How the sync waits: real timers in the server, a stand-in in tests (no test sleeps). */
export type Waiting = {
  /** Milliseconds on a monotonic clock. */
  clock: () => number
  sleep: (ms: number) => Promise<void>
}

export const realWaiting: Waiting = {
  clock: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

/**
 * A token bucket without a burst: one request every `1/rate` seconds, so that no second, wherever
 * it starts, holds more than `rate` (Nextech counts its 20 a second over a sliding second; a
 * bucket that let 20 go at once and then refilled would send up to 40 in the first second and
 * earn a 429, each costing the `Retry-After` second). `take` waits until the caller's turn. One
 * bucket per practice and endpoint.
 */
export function createTokenBucket(rate: number, waiting: Waiting) {
  const spacing = 1000 / rate
  let next = Number.NEGATIVE_INFINITY
  let queue: Promise<void> = Promise.resolve()
  const takeOne = async () => {
    let at = waiting.clock()
    while (at < next) {
      await waiting.sleep(Math.ceil(next - at))
      at = waiting.clock()
    }
    next = at + spacing
  }
  return {
    /** Resolves when the caller may send one request; callers are served in order. */
    take(): Promise<void> {
      const turn = queue.then(takeOne)
      queue = turn.catch(() => undefined)
      return turn
    },
  }
}

/** Attempts of one request before the sync gives up for this run (its watermark keeps it safe). */
export const NEXTECH_ATTEMPTS = 6

/** The wait before attempt `attempt` (1-based retry): 0.5 s doubling, at most 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 500 * 2 ** (attempt - 1))
}

/** Failures worth another try: Nextech limiting requests, unreachable, or answering 5xx. */
function retryable(error: unknown): error is NextechFailure {
  return (
    error instanceof NextechFailure &&
    (error.reason === 'rate_limited' || error.reason === 'unreachable')
  )
}

/**
 * Runs `request` until it answers: a 429 waits what `Retry-After` says (else the backoff), an
 * unreachable Nextech or a 5xx waits the exponential backoff; after {@link NEXTECH_ATTEMPTS} the
 * last failure is thrown. Other failures (credentials, practice ID) are thrown at once.
 * `onRetry` counts what was retried.
 */
export async function withRetries<T>(
  request: () => Promise<T>,
  waiting: Waiting,
  onRetry: (failure: NextechFailure) => void = () => undefined,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request()
    } catch (error) {
      if (!retryable(error) || attempt >= NEXTECH_ATTEMPTS) throw error
      onRetry(error)
      const after = error.retryAfterSeconds
      await waiting.sleep(after !== undefined ? after * 1000 : backoffMs(attempt))
    }
  }
}
