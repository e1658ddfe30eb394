import { API_ERROR_NAMES } from '#domain/api-error.ts'
import type { RateLimitDecision } from '#server/security/rate-limit.ts'
import { ApiError } from './errors.ts'

/** 429 with `message`; `details.retryAfterSeconds` (and the `Retry-After` header) say when to try again. */
export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, API_ERROR_NAMES.rateLimit, message, { retryAfterSeconds })
}

/** Refuses with {@link tooManyRequests} what a rate limit did not allow. */
export function refuseWhenLimited(decision: RateLimitDecision, message: string): void {
  if (!decision.allowed) throw tooManyRequests(message, decision.retryAfterSeconds)
}
