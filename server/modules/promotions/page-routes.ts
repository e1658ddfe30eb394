import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { type Context, Hono } from 'hono'
import { OFFER_MESSAGES } from '#domain/offers.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ApiError, apiErrorOf } from '#server/http/errors.ts'
import { DomainError } from '#server/lib/domain-error.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { offerLimiter } from './offer-routes.ts'
import { claimOfferByToken, offerByToken } from './offer-service.ts'
import {
  offerPage,
  resubscribedPage,
  UNSUBSCRIBE_PAGE,
  unsubscribedPage,
  unsubscribePage,
} from './pages.ts'
import { ONE_CLICK_LIMIT, ONE_CLICK_MESSAGES } from './unsubscribe-routes.ts'
import {
  isUnsubscribeTokenShaped,
  resubscribeByToken,
  unsubscribeByToken,
} from './unsubscribe-service.ts'

const UNSUBSCRIBE_SCRIPT = readFileSync(new URL('./unsubscribe.client.js', import.meta.url), 'utf8')

/** The unsubscribe page's script, named by its content so that browsers may keep it for good. */
export const UNSUBSCRIBE_SCRIPT_PATH = `/assets/unsubscribe-page-${createHash('sha256')
  .update(UNSUBSCRIBE_SCRIPT)
  .digest('base64url')
  .slice(0, 10)}.js`

/** A patient page: personal (a name, an offer), so no cache keeps it, and no search engine. */
function page(c: Context<AppEnv>, html: string, status: 200 | 404 | 409 | 403 | 422 | 429 = 200) {
  c.header('Cache-Control', 'no-store')
  c.header('X-Robots-Tag', 'noindex')
  return c.html(html, status)
}

type PageStatus = Parameters<typeof page>[2]

/** A refusal as the API answers it (a use case's, or the rate limit's); undefined for a failure. */
function refusalOf(error: unknown): ApiError | undefined {
  if (error instanceof DomainError) return apiErrorOf(error)
  return error instanceof ApiError ? error : undefined
}

function statusOf(error: ApiError): PageStatus {
  const status = error.status
  return status === 404 || status === 409 || status === 403 || status === 422 || status === 429
    ? status
    : 409
}

/**
 * The pages a patient opens from an e-mail, answered by the server as whole documents
 * (server/modules/promotions/pages.ts) before the app's history fallback:
 * - `GET /unsubscribe/{id}`: the page, whose script sends the spec's call on opening; without
 *   scripts, `POST /unsubscribe/{id}` (its form) unsubscribes and answers the outcome.
 * - `GET /offers/{token}`: the offer with its practice and where it stands for the patient;
 *   `POST /offers/{token}` (the "Claim offer" form) claims it and sends the browser back to the
 *   page (303), or shows the page with why the claim was refused.
 * The token is the only key, as for the API's calls (server/modules/promotions/offer-routes.ts), with the same
 * limit per address.
 */
export function patientPageRoutes(ctx: ServerContext) {
  const limitOffer = offerLimiter(ctx)
  const unsubscribeLimiter = createRateLimiter(ctx.rateLimitStore)
  /** Whether this address may use the unsubscribe page's forms now (one budget for both). */
  const unsubscribeAllowed = async (c: Context) =>
    (
      await unsubscribeLimiter.consume(
        `unsubscribe-page:ip:${ctx.clientIp(c)}`,
        ONE_CLICK_LIMIT,
        ctx.now().getTime(),
      )
    ).allowed

  async function offerView(c: Context<AppEnv>, token: string, error?: ApiError) {
    try {
      const answer = await offerByToken(ctx, token)
      return page(c, offerPage(token, { answer, error: error?.message }), error && statusOf(error))
    } catch (failure) {
      const refusal = refusalOf(failure)
      if (!refusal) throw failure
      return page(c, offerPage(token, { failed: refusal.message }), statusOf(refusal))
    }
  }

  return new Hono<AppEnv>()
    .get(UNSUBSCRIBE_SCRIPT_PATH, (c) => {
      c.header('Cache-Control', 'public, max-age=31536000, immutable')
      c.header('Content-Type', 'text/javascript; charset=utf-8')
      return c.body(UNSUBSCRIBE_SCRIPT)
    })
    .get('/unsubscribe/:id', (c) =>
      page(c, unsubscribePage(c.req.param('id'), UNSUBSCRIBE_SCRIPT_PATH)),
    )
    .post('/unsubscribe/:id', async (c) => {
      const id = c.req.param('id')
      if (!(await unsubscribeAllowed(c))) {
        return page(
          c,
          unsubscribedPage(id, { ok: false, message: ONE_CLICK_MESSAGES.tooMany }),
          429,
        )
      }
      // Only a link of the wrong shape is refused; any other gets the same page, whether or not
      // it names a patient, so the form tells nobody which links exist.
      if (!isUnsubscribeTokenShaped(id)) {
        return page(c, unsubscribedPage(id, { ok: false, message: UNSUBSCRIBE_PAGE.invalid }), 404)
      }
      await unsubscribeByToken(ctx.db, id)
      return page(c, unsubscribedPage(id, { ok: true }))
    })
    .post('/unsubscribe/:id/subscribe', async (c) => {
      // "Subscribe again": the patient of the link is subscribed again, once; the
      // change is in the practice's activity log, with no staff member (the patient did it).
      const id = c.req.param('id')
      if (!(await unsubscribeAllowed(c))) {
        return page(
          c,
          resubscribedPage(id, { ok: false, message: ONE_CLICK_MESSAGES.tooMany }),
          429,
        )
      }
      if (!isUnsubscribeTokenShaped(id)) {
        return page(c, resubscribedPage(id, { ok: false, message: UNSUBSCRIBE_PAGE.invalid }), 404)
      }
      // A well-formed link that names nobody gets the same page as a real one.
      await resubscribeByToken(ctx.db, id, { ip: ctx.clientIp(c), now: ctx.now() })
      return page(c, resubscribedPage(id, { ok: true }))
    })
    .get('/offers/:token', async (c) => {
      const token = c.req.param('token')
      try {
        await limitOffer(c)
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        return page(c, offerPage(token, { failed: error.message }), 429)
      }
      return offerView(c, token)
    })
    .post('/offers/:token', async (c) => {
      const token = c.req.param('token')
      try {
        await limitOffer(c)
        await claimOfferByToken(ctx, token, ctx.clientIp(c))
      } catch (error) {
        const refusal = refusalOf(error)
        if (!refusal) throw error
        if (refusal.status === 429)
          return page(c, offerPage(token, { failed: OFFER_MESSAGES.tooMany }), 429)
        return offerView(c, token, refusal)
      }
      // Post, redirect, get: a reload shows the claimed offer and sends nothing again.
      return c.redirect(`/offers/${encodeURIComponent(token)}`, 303)
    })
}
