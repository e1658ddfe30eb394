import { Hono } from 'hono'
import { NextechStatusSchema, NextechTestAnswerSchema } from '#domain/nextech.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { refuseWhenLimited } from '#server/http/rate-limited.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { nextechService } from './service.ts'

/** Connection tests per practice: each signs in at Microsoft and reads Nextech once. */
export const NEXTECH_TEST_LIMIT = { max: 10, windowMs: 60 * 1000 } as const

/** The 429 of {@link NEXTECH_TEST_LIMIT}. */
export const NEXTECH_TEST_TOO_MANY =
  'The Nextech connection was tested many times in the last minute. Please wait a minute and try again.'

/**
 * `/practice/integrations/nextech`: the connection's status (any member of the practice; never
 * the credentials) and "Test connection" (Admin: `practice.settings`). The four fields themselves
 * are set in the practice's details (`PUT /practice`).
 */
export function nextechRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const nextech = nextechService(ctx)
  const limiter = createRateLimiter(ctx.rateLimitStore)
  return new Hono<AppEnv>()
    .get(
      '/',
      operation({
        summary: 'Read the Nextech connection',
        description:
          'Any member of the practice: whether the practice chose Nextech and gave its four fields, whether the last call to Nextech worked, since when, and the last failure in words. The credentials are never answered. `sandbox` is true where the built-in Nextech sandbox answers (never in production).',
        tag: 'Integrations',
        responses: { 200: { description: 'The connection.', json: NextechStatusSchema } },
      }),
      auth,
      anyStaffMember(),
      async (c) => c.json(await nextech.status(c.var.user.practice_id)),
    )
    .post(
      '/test',
      operation({
        summary: 'Test the Nextech connection',
        description:
          "Admin only. Signs the practice's Nextech API user in (OAuth 2.0 password grant at Microsoft) and reads one page of patients with its practice ID. `ok` says whether it worked; `message` says why not in words (wrong username or password, a password expired at Microsoft, an unknown client ID or practice ID, Nextech unreachable or limiting requests). Audited with the outcome. At most 10 tests a minute per practice (429).",
        tag: 'Integrations',
        responses: {
          200: { description: 'The outcome, in words.', json: NextechTestAnswerSchema },
          429: TOO_MANY,
        },
      }),
      auth,
      requirePermission(ctx, 'practice.settings'),
      async (c) => {
        const key = `nextech-test:${c.var.user.practice_id}`
        const decision = await limiter.consume(key, NEXTECH_TEST_LIMIT, ctx.now().getTime())
        refuseWhenLimited(decision, NEXTECH_TEST_TOO_MANY)
        return c.json(await nextech.test(actorOf(ctx, c)))
      },
    )
}
