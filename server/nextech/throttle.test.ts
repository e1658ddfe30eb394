import { describe, expect, it } from 'vitest'
import { NextechFailure } from './failures.ts'
import {
  backoffMs,
  createTokenBucket,
  NEXTECH_ATTEMPTS,
  NEXTECH_REQUESTS_PER_SECOND,
  type Waiting,
  withRetries,
} from './throttle.ts'

/** A clock that moves only when the code under test sleeps: what it waited is what it asked. */
function fakeWaiting() {
  let now = 0
  const slept: number[] = []
  const waiting: Waiting = {
    clock: () => now,
    sleep: async (ms) => {
      slept.push(ms)
      now += ms
    },
  }
  return { waiting, slept, now: () => now }
}

describe('the token bucket', () => {
  it('never lets more than 20 requests into any second, wherever the second starts', async () => {
    const { waiting, now } = fakeWaiting()
    const bucket = createTokenBucket(NEXTECH_REQUESTS_PER_SECOND, waiting)
    const sent: number[] = []
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        await bucket.take()
        sent.push(now())
      }),
    )
    expect(sent).toHaveLength(100)
    for (const start of sent) {
      const inWindow = sent.filter((at) => at >= start && at < start + 1000)
      expect(inWindow.length).toBeLessThanOrEqual(20)
    }
    // And no slower than that: 100 requests in 99 spacings of 50 ms.
    expect((sent.at(-1) ?? 0) - (sent[0] ?? 0)).toBe(99 * 50)
  })
})

describe('retries', () => {
  const unreachable = () => new NextechFailure('unreachable', 'Nextech could not be reached.')

  it('waits what Retry-After says for a 429, the growing backoff for a 5xx, then answers', async () => {
    const { waiting, slept } = fakeWaiting()
    const failures = [
      new NextechFailure('rate_limited', 'limited', { retryAfterSeconds: 2 }),
      unreachable(),
      unreachable(),
    ]
    const answer = await withRetries(async () => {
      const failure = failures.shift()
      if (failure) throw failure
      return 'page'
    }, waiting)
    expect(answer).toBe('page')
    expect(slept).toEqual([2000, backoffMs(2), backoffMs(3)])
  })

  it(`gives up after ${NEXTECH_ATTEMPTS} attempts, and never retries refused credentials`, async () => {
    const { waiting } = fakeWaiting()
    let attempts = 0
    await expect(
      withRetries(async () => {
        attempts += 1
        throw unreachable()
      }, waiting),
    ).rejects.toThrow('could not be reached')
    expect(attempts).toBe(NEXTECH_ATTEMPTS)
    attempts = 0
    await expect(
      withRetries(async () => {
        attempts += 1
        throw new NextechFailure('credentials', 'wrong password')
      }, waiting),
    ).rejects.toThrow('wrong password')
    expect(attempts).toBe(1)
  })
})
