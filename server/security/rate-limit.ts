import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { rateLimits } from '#server/db/schema.ts'

/** A limit: at most `max` counted events per fixed window of `windowMs`. */
export type RateLimitRule = { max: number; windowMs: number }

/** A counter's state: events counted in the current window and when that window ends (ms). */
export type RateLimitCount = { count: number; resetAt: number }

/**
 * Where counters live. The in-memory store suits one server instance; the Postgres store shares
 * counters between instances behind a load balancer.
 */
export interface RateLimitStore {
  /** Counts one event for `key` and returns the window's count including it. */
  increment(key: string, windowMs: number, now: number): Promise<RateLimitCount>
  /** The current window's count for `key`, without counting; null when nothing is counted. */
  get(key: string, windowMs: number, now: number): Promise<RateLimitCount | null>
  /** Forgets `key` (for example after a successful sign-in). */
  reset(key: string): Promise<void>
}

/** How many finished windows the memory store tolerates before sweeping them. */
const SWEEP_THRESHOLD = 10_000

/** Counters in a Map, per process. Finished windows are swept once the map grows large. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, RateLimitCount>()
  const live = (key: string, now: number) => {
    const current = windows.get(key)
    if (current && current.resetAt <= now) {
      windows.delete(key)
      return undefined
    }
    return current
  }
  return {
    async increment(key, windowMs, now) {
      const current = live(key, now)
      if (current) {
        current.count += 1
        return { ...current }
      }
      if (windows.size >= SWEEP_THRESHOLD) {
        for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k)
      }
      const fresh = { count: 1, resetAt: now + windowMs }
      windows.set(key, fresh)
      return { ...fresh }
    },
    async get(key, _windowMs, now) {
      const current = live(key, now)
      return current ? { ...current } : null
    },
    async reset(key) {
      windows.delete(key)
    },
  }
}

/**
 * Counters in the `rate_limits` table: one atomic upsert per event, so every instance sees the
 * same counts. A row whose window has finished starts over at 1.
 */
export function createPostgresRateLimitStore(db: Database): RateLimitStore {
  return {
    async increment(key, windowMs, now) {
      const at = new Date(now)
      const windowStartedBefore = new Date(now - windowMs)
      const [row] = await db
        .insert(rateLimits)
        .values({ key, count: 1, window_start: at })
        .onConflictDoUpdate({
          target: rateLimits.key,
          set: {
            count: sql`case when ${rateLimits.window_start} <= ${windowStartedBefore} then 1 else ${rateLimits.count} + 1 end`,
            window_start: sql`case when ${rateLimits.window_start} <= ${windowStartedBefore} then ${at} else ${rateLimits.window_start} end`,
          },
        })
        .returning({ count: rateLimits.count, window_start: rateLimits.window_start })
      if (!row) throw new Error('rate limit counter was not written')
      return { count: row.count, resetAt: row.window_start.getTime() + windowMs }
    },
    async get(key, windowMs, now) {
      const [row] = await db
        .select({ count: rateLimits.count, window_start: rateLimits.window_start })
        .from(rateLimits)
        .where(sql`${rateLimits.key} = ${key}`)
        .limit(1)
      if (!row) return null
      const resetAt = row.window_start.getTime() + windowMs
      return resetAt > now ? { count: row.count, resetAt } : null
    },
    async reset(key) {
      await db.delete(rateLimits).where(sql`${rateLimits.key} = ${key}`)
    },
  }
}

/** The outcome of a check: allowed, or refused with the seconds until the window ends. */
export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number }

function decision(
  count: RateLimitCount | null,
  rule: RateLimitRule,
  now: number,
): RateLimitDecision {
  if (!count || count.count <= rule.max) return { allowed: true }
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((count.resetAt - now) / 1000)) }
}

/**
 * Fixed-window rate limiting over a {@link RateLimitStore}.
 *
 * - `consume` counts an attempt and refuses once more than `max` fell in the window (per-IP limits).
 * - `check` refuses when `max` events are already counted, without counting (an account locked
 *   by failed sign-ins), and `fail` counts one such event; `reset` clears the key.
 */
export function createRateLimiter(store: RateLimitStore) {
  return {
    async consume(key: string, rule: RateLimitRule, now: number): Promise<RateLimitDecision> {
      return decision(await store.increment(key, rule.windowMs, now), rule, now)
    },
    async check(key: string, rule: RateLimitRule, now: number): Promise<RateLimitDecision> {
      const count = await store.get(key, rule.windowMs, now)
      // Refused when the next event would be one too many.
      return count ? decision({ ...count, count: count.count + 1 }, rule, now) : { allowed: true }
    },
    async fail(key: string, rule: RateLimitRule, now: number): Promise<void> {
      await store.increment(key, rule.windowMs, now)
    },
    reset(key: string): Promise<void> {
      return store.reset(key)
    },
  }
}

/** A rate limiter as {@link createRateLimiter} makes it. */
export type RateLimiter = ReturnType<typeof createRateLimiter>
