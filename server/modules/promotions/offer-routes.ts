import { type Context, Hono } from 'hono'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { OFFER_MESSAGES, OfferAnswerSchema } from '#domain/offers.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ApiError } from '#server/http/errors.ts'
import { operation, tokenParam } from '#server/openapi/operation.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { claimOfferByToken, offerByToken } from './offer-service.ts'

/** Offer pages and claims from one address: a patient opens a few; a scanner of tokens, many. */
export const OFFER_LIMIT = { max: 60, windowMs: 60 * 1000 } as const

/**
 * Counts one offer page or claim from the caller's address against {@link OFFER_LIMIT}; throws
 * 429 past it. Shared by the calls below and the server-rendered page (server/modules/promotions/page-routes.ts).
 */
export function offerLimiter(ctx: ServerContext) {
  const limiter = createRateLimiter(ctx.rateLimitStore)
  return async function limit(c: Context<AppEnv>) {
    const decision = await limiter.consume(
      `offers:ip:${ctx.clientIp(c)}`,
      OFFER_LIMIT,
      ctx.now().getTime(),
    )
    if (!decision.allowed) {
      throw new ApiError(429, API_ERROR_NAMES.rateLimit, OFFER_MESSAGES.tooMany, {
        retryAfterSeconds: decision.retryAfterSeconds,
      })
    }
  }
}

/**
 * The public offer page's calls, mounted under `/api/offers`: `GET /{token}` answers
 * the offer a patient's personal e-mail link names, with the practice's name and logo and where
 * it stands for the patient; `POST /{token}/claim` claims it for that patient (the funnel's
 * claimed step; server/modules/promotions/offer-service.ts). No session: the random token (256 bits) is the key,
 * and it names one patient and one offer. The page itself is rendered by the server
 * (server/modules/promotions/page-routes.ts); these calls are for other clients.
 */
export function offerRoutes(ctx: ServerContext) {
  const limit = offerLimiter(ctx)
  return new Hono<AppEnv>()
    .get(
      '/:token',
      operation({
        summary: "Read the offer of a patient's personal link",
        description:
          "The public offer page's call: the offer an e-mailed link names, the practice's name and logo, the patient's first name, and where it stands for the patient (`open`, `claimed`, `redeemed`, `ended`, `unavailable`, with the reason). The random token of the link is the key: no session is needed. Rate-limited per client address.",
        tag: 'Promotions',
        public: true,
        path: { token: tokenParam("The token of the patient's personal offer link.") },
        responses: {
          200: { description: 'The offer.', json: OfferAnswerSchema },
          404: OFFER_MESSAGES.notFound,
          429: OFFER_MESSAGES.tooMany,
        },
      }),
      async (c) => {
        await limit(c)
        return c.json(await offerByToken(ctx, c.req.param('token')))
      },
    )
    .post(
      '/:token/claim',
      operation({
        summary: "Claim the offer of a patient's personal link",
        description:
          "The funnel's claimed step, by the patient from the e-mail: claims the offer for the link's patient under the same rules as a claim at the desk (live, total and per-patient limits); a code-only offer needs no code here, the practice sent it to this patient. Claiming again answers the same claimed offer. No session is needed.",
        tag: 'Promotions',
        public: true,
        path: { token: tokenParam("The token of the patient's personal offer link.") },
        responses: {
          200: { description: 'The offer, now claimed.', json: OfferAnswerSchema },
          404: OFFER_MESSAGES.notFound,
          409: 'The offer has ended, reached its limit, or the patient is archived.',
          429: OFFER_MESSAGES.tooMany,
        },
      }),
      async (c) => {
        await limit(c)
        return c.json(await claimOfferByToken(ctx, c.req.param('token'), ctx.clientIp(c)))
      },
    )
}
