import { describe, expect, it } from 'vitest'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { createUnlimitedRateLimitStore } from './unlimited-store.ts'

describe('the benchmark rate-limit store', () => {
  it('never refuses, however many events one key counts', async () => {
    const limiter = createRateLimiter(createUnlimitedRateLimitStore())
    const rule = { max: 2, windowMs: 60_000 }
    for (let i = 0; i < 10; i++) {
      expect(await limiter.consume('ip:127.0.0.1', rule, 1000 + i)).toEqual({ allowed: true })
      await limiter.fail('account:a@example.com', rule, 1000 + i)
    }
    expect(await limiter.check('account:a@example.com', rule, 2000)).toEqual({ allowed: true })
  })
})
