import { Hono } from 'hono'
import { UnsubscribeAnswerSchema } from '#domain/api-answers.ts'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ApiError, badRequest } from '#server/http/errors.ts'
import { operation, tokenParam } from '#server/openapi/operation.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { unsubscribeByToken } from './unsubscribe-service.ts'

/** One-click unsubscribes from one address: a mail provider posts one per e-mail it shows. */
export const ONE_CLICK_LIMIT = { max: 60, windowMs: 60 * 1000 } as const

/** What the one-click POST's body must say (RFC 8058 section 3.1). */
export const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click'

export const ONE_CLICK_MESSAGES = {
  body: `The body must be ${ONE_CLICK_BODY} (RFC 8058), sent as a form.`,
  tooMany: 'Too many unsubscribe requests. Please wait a minute and try again.',
} as const

/**
 * `POST /unsubscribe/{token}` (mounted under `/api`): the RFC 8058 one-click unsubscribe that
 * every marketing e-mail names in `List-Unsubscribe`, next to the spec's page. A mail client
 * posts `List-Unsubscribe=One-Click` as a form, without cookies or a session: the random token is
 * the key, and the change is what the spec's page does ({@link unsubscribeByToken}). The answer
 * is 200 whether or not the token names a patient, so the call tells nobody which links exist.
 */
export function oneClickUnsubscribeRoutes(ctx: ServerContext) {
  const limiter = createRateLimiter(ctx.rateLimitStore)
  return new Hono<AppEnv>().post(
    '/:token',
    operation({
      summary: 'Unsubscribe a patient in one click (RFC 8058)',
      description:
        "The one-click URL of a patient e-mail's `List-Unsubscribe` header. A mail client posts the form body `List-Unsubscribe=One-Click`, without a session or the XSRF header; the random token is the key. It does what the unsubscribe page does, and answers 200 whether or not the token names a patient.",
      tag: 'Patients',
      public: true,
      path: { token: tokenParam('The unsubscribe token of the e-mailed link.') },
      responses: {
        200: {
          description: 'The patient (if any) is unsubscribed.',
          json: UnsubscribeAnswerSchema,
        },
        400: 'The body must be List-Unsubscribe=One-Click (RFC 8058), sent as a form.',
        429: 'Too many unsubscribe requests from this address.',
      },
    }),
    async (c) => {
      const decision = await limiter.consume(
        `one-click:ip:${ctx.clientIp(c)}`,
        ONE_CLICK_LIMIT,
        ctx.now().getTime(),
      )
      if (!decision.allowed) {
        throw new ApiError(429, API_ERROR_NAMES.rateLimit, ONE_CLICK_MESSAGES.tooMany, {
          retryAfterSeconds: decision.retryAfterSeconds,
        })
      }
      const mediaType = (c.req.header('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase()
      if (
        mediaType !== 'application/x-www-form-urlencoded' &&
        mediaType !== 'multipart/form-data'
      ) {
        throw badRequest(ONE_CLICK_MESSAGES.body)
      }
      const form = await c.req.parseBody().catch(() => undefined)
      if (form?.['List-Unsubscribe'] !== 'One-Click') throw badRequest(ONE_CLICK_MESSAGES.body)
      await unsubscribeByToken(ctx.db, c.req.param('token'))
      return c.json({ email_subscription: false as const })
    },
  )
}
