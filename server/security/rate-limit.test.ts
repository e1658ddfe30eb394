import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import {
  createMemoryRateLimitStore,
  createPostgresRateLimitStore,
  createRateLimiter,
  type RateLimitStore,
} from './rate-limit.ts'

const MINUTE = 60_000
const T0 = Date.parse('2026-06-01T09:00:00Z')

let handle: DatabaseHandle
beforeAll(async () => {
  handle = await openDatabase({ dataDir: 'memory' })
})
afterAll(() => handle.close())

const stores: Array<{ name: string; make: () => RateLimitStore }> = [
  { name: 'memory', make: createMemoryRateLimitStore },
  { name: 'postgres table (PGlite)', make: () => createPostgresRateLimitStore(handle.db) },
]

describe.each(stores)('rate limiting with the $name store', ({ make }) => {
  const rule = { max: 3, windowMs: 5 * MINUTE }
  let n = 0
  const key = () => `test:${make.name}:${++n}`

  it('consume allows max events per window, refuses the next with the seconds left', async () => {
    const limiter = createRateLimiter(make())
    const k = key()
    for (let i = 0; i < rule.max; i++) {
      expect(await limiter.consume(k, rule, T0 + i * 1000)).toEqual({ allowed: true })
    }
    expect(await limiter.consume(k, rule, T0 + 60_000)).toEqual({
      allowed: false,
      retryAfterSeconds: 240,
    })
  })

  it('starts a new window once the old one has passed', async () => {
    const limiter = createRateLimiter(make())
    const k = key()
    for (let i = 0; i <= rule.max; i++) await limiter.consume(k, rule, T0)
    expect((await limiter.consume(k, rule, T0)).allowed).toBe(false)
    expect(await limiter.consume(k, rule, T0 + rule.windowMs)).toEqual({ allowed: true })
  })

  it('check does not count; fail counts; a key at max is refused', async () => {
    const limiter = createRateLimiter(make())
    const k = key()
    expect(await limiter.check(k, rule, T0)).toEqual({ allowed: true })
    for (let i = 0; i < rule.max - 1; i++) await limiter.fail(k, rule, T0)
    expect(await limiter.check(k, rule, T0)).toEqual({ allowed: true })
    expect(await limiter.check(k, rule, T0)).toEqual({ allowed: true })
    await limiter.fail(k, rule, T0)
    expect(await limiter.check(k, rule, T0 + MINUTE)).toEqual({
      allowed: false,
      retryAfterSeconds: 240,
    })
    expect(await limiter.check(k, rule, T0 + rule.windowMs)).toEqual({ allowed: true })
  })

  it('reset forgets a key', async () => {
    const limiter = createRateLimiter(make())
    const k = key()
    for (let i = 0; i < rule.max; i++) await limiter.fail(k, rule, T0)
    expect((await limiter.check(k, rule, T0)).allowed).toBe(false)
    await limiter.reset(k)
    expect(await limiter.check(k, rule, T0)).toEqual({ allowed: true })
  })

  it('keeps keys apart', async () => {
    const limiter = createRateLimiter(make())
    const a = key()
    const b = key()
    for (let i = 0; i <= rule.max; i++) await limiter.consume(a, rule, T0)
    expect((await limiter.consume(a, rule, T0)).allowed).toBe(false)
    expect(await limiter.consume(b, rule, T0)).toEqual({ allowed: true })
  })
})

describe('the Postgres store', () => {
  it('shares counters between two limiters over the same table (two app instances)', async () => {
    const rule = { max: 2, windowMs: MINUTE }
    const first = createRateLimiter(createPostgresRateLimitStore(handle.db))
    const second = createRateLimiter(createPostgresRateLimitStore(handle.db))
    await first.consume('shared', rule, T0)
    await second.consume('shared', rule, T0)
    expect((await first.consume('shared', rule, T0)).allowed).toBe(false)
  })
})
