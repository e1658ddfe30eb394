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
])

/** Fills a route's `:params` with values (encoded), e.g. `/api/users/:id` → `/api/users/7`. */
export function fillPath(path: string, value: (name: string) => string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(value(name)))
}
