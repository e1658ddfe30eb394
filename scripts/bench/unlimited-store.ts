import type { RateLimitStore } from '#server/security/rate-limit.ts'

/**
 * A rate-limit store that runs the limiter's code path but never lets a count pass 1, so no
 * request is refused. For the benchmark only: load from one address would otherwise measure the
 * 429 answers of the per-address limits (60 availability checks a minute, 30 sign-ins in 5
 * minutes). It is injected through `createApp({ rateLimitStore })`; production never builds one.
 */
export function createUnlimitedRateLimitStore(): RateLimitStore {
  return {
    async increment(_key, windowMs, now) {
      return { count: 1, resetAt: now + windowMs }
    },
    async get() {
      return null
    },
    async reset() {},
  }
}
