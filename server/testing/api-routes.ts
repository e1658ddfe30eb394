/**
 * Test support: the API's routes as the built Hono app lists them (`app.routes`), so the security
 * suites cover every route there is, including ones added later, rather than a list kept by hand.
 */
import type { AppType } from '#server/app.ts'

/** One API route: method and Hono path pattern, e.g. `GET /api/patients/:id`. */
export type ApiRoute = { method: string; path: string; key: string }

/** Every concrete route under `/api` (middleware entries, method `ALL`, left out), each once. */
export function apiRoutes(app: AppType): ApiRoute[] {
  const seen = new Map<string, ApiRoute>()
  for (const route of app.routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/api/')) continue
    const key = `${route.method} ${route.path}`
    if (!seen.has(key)) seen.set(key, { method: route.method, path: route.path, key })
  }
  return [...seen.values()]
}

/**
 * Routes anyone may call without a session: the sign-in and sign-up calls,
 * the public catalogue, the invitation preview, the unsubscribe link, uploaded images (by their
 * random address), a membership's card-update link (by its token), the payment gateway's signed
 * webhooks, the development outbox and billing clock, and
 * the API's own contract and reference.
 * Every other route must refuse a request without a valid session.
 */
export const PUBLIC_ROUTES = new Set([
  'GET /api/health',
  'GET /api/practice/plans',
  'GET /api/practice/coupons/:code',
  'PUT /api/patients/unsubscribe/:token',
  'POST /api/unsubscribe/:token',
  'GET /api/offers/:token',
  'POST /api/offers/:token/claim',
  'POST /api/auth/local',
  'POST /api/auth/forgot-password',
  'POST /api/auth/reset-password',
  'POST /api/auth/reset-code-status',
  'POST /api/auth/check-email',
  'POST /api/auth/get-code',
  'POST /api/auth/verify-code',
  'POST /api/auth/pay',
  'POST /api/auth/local/register',
  'POST /api/auth/personnel/register',
  'GET /api/personnel/:id',
  // An uploaded image: an <img> sends no session; its random key grants it (decision 011).
  'GET /api/upload/files/:id/:key',
  'POST /api/payments/test-tokens',
  // The patient's card-update page behind a declined renewal's notice: the link's token is the key.
  'GET /api/membership-card/:token',
  'PUT /api/membership-card/:token',
  // Posted by the payment gateway, without a session: the Stripe-Signature is the key.
  'POST /api/webhooks/payments',
  'GET /api/dev/outbox',
  // Outside production and to the loopback interface only, like the outbox.
  'POST /api/dev/clock',
  'GET /api/dev/patients/:id/unsubscribe-id',
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/docs/assets/:file',
  // The patient's wallet: its practice's name, and the sign-in by code (rate-limited).
  'GET /api/wallet/:practiceId',
  'POST /api/wallet/:practiceId/code',
  'POST /api/wallet/:practiceId/session',
])

/**
 * Routes a patient session of the wallet opens, and nothing else: a staff token is refused there
 * (403) and a patient token is refused on every other route (server/modules/wallet/*.test.ts walks
 * them all). Not public: without a patient session they answer 401.
 */
export const PATIENT_ROUTES = new Set([
  'GET /api/wallet/me',
  'POST /api/wallet/me/offers/:promotionId/claim',
  'PUT /api/wallet/me/consent',
  'PUT /api/wallet/me/card',
  'POST /api/wallet/me/membership/cancel',
  'POST /api/wallet/me/membership/pause',
  'POST /api/wallet/logout',
])

/** Fills a route's `:params` with values (encoded), e.g. `/api/users/:id` → `/api/users/7`. */
export function fillPath(path: string, value: (name: string) => string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(value(name)))
}
