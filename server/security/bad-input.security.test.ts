import { getTableName, sql } from 'drizzle-orm'
import { PgTable } from 'drizzle-orm/pg-core'
import fc from 'fast-check'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiErrorBodySchema } from '#domain/api-error.ts'
import { MAX_BODY_BYTES } from '#server/app.ts'
import * as schema from '#server/db/schema.ts'
import { signEvent, TEST_WEBHOOK_SECRET } from '#server/payments/member-gateway.ts'
import { type ApiRoute, apiRoutes, fillPath } from '#server/testing/api-routes.ts'
import { createTestApp, httpBackends, mintToken, type TestApp } from '#server/testing/test-app.ts'

/** Generated requests per route: about 3,000 in all for the app's ~40 routes. */
const RUNS_PER_ROUTE = 75

/** Tables whose rows a refused request may still add: counters and the audit trail. */
const MAY_GROW = new Set(['rate_limits', 'audit_events'])

/** Routes that take no input at all: any request answers 2xx (or 401 without a session). */
const INPUTLESS = new Set([
  'GET /api/health',
  'GET /api/practice/plans',
  'GET /api/users',
  'GET /api/personnel',
  'GET /api/dev/outbox',
  'GET /api/users-permissions/init',
  'GET /api/practice/rules',
  'GET /api/practice',
  'GET /api/practice/subscription',
  // The demo practice has a subscription on the test gateway: these act on it, body or not.
  'POST /api/practice/subscription/cancel',
  'POST /api/practice/subscription/resume',
  'GET /api/patients/summary',
  'POST /api/auth/logout',
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/reports/patients.csv',
  'GET /api/reports/ledger.csv',
  'DELETE /api/practice/logo',
  // The Nextech connection: its status, and its test (nothing to test while the demo practice
  // does not use Nextech; the test's own limit answers 429 in the JSON error shape).
  'GET /api/practice/integrations/nextech',
  'POST /api/practice/integrations/nextech/test',
  // Disconnecting (nothing to disconnect), the queue and the codes (empty), "Sync now" (409:
  // not connected, in the JSON error shape).
  'DELETE /api/practice/integrations/nextech',
  'GET /api/practice/integrations/nextech/review',
  'GET /api/practice/integrations/nextech/unmapped',
  'POST /api/practice/integrations/nextech/sync',
  // The payment account: its status, and connecting it (connected before the walk, so connecting
  // again answers the first account and adds nothing).
  'GET /api/practice/payments',
  'POST /api/practice/payments/connect',
])

/**
 * Routes whose every input is optional (a search, a page): junk they do not know is ignored, so
 * they may answer 2xx; anything they do read must still be refused with a 4xx.
 */
const OPTIONAL_INPUT = new Set([
  'GET /api/patients',
  'GET /api/audit',
  'GET /api/audit/export.csv',
  'GET /api/reports/summary',
  'GET /api/reports/liability',
  'GET /api/reports/liability.csv',
  'GET /api/promotions',
  'GET /api/patients/duplicates',
  // The plans (`archived`) and the members (`status`, `plan_id`, `page`).
  'GET /api/membership-plans',
  'GET /api/memberships',
  // The memberships report and its CSV (`from`, `to`: the last 12 months without them).
  'GET /api/reports/memberships',
  'GET /api/reports/memberships.csv',
])

// Field names the real bodies use, so generated objects reach the schemas' inner checks.
const KNOWN_KEYS = [
  'identifier',
  'password',
  'remember',
  'recaptchaToken',
  'email',
  'url',
  'code',
  'passwordConfirmation',
  'phone',
  'countryCode',
  'authyId',
  'token',
  'billingInformation',
  'first_name',
  'last_name',
  'position',
  'title',
  'id',
  'cell_phone',
  'password_confirm',
  'practice',
  'stripe_id',
  'email_subscription',
  'promo',
  'patient_id',
  'number',
  'exp_month',
  'exp_year',
  'cvc',
  'name',
  'points',
  'phone',
  'username',
  'coupon',
  'practice_id',
  'practice_name',
  'practice_zip',
  'country',
  'state',
  'footer_links',
  'country_code',
  'plan_id',
  'payment_method_token',
  'consent',
  'idempotencyKey',
  'cycles',
  'at',
  'refund',
  'price_cents',
  'interval',
  'perks',
  'contact',
  'sms_subscription',
] as const

// Strings no field accepts: empty, blank, NUL, control characters, far too long, lone surrogates.
const badString = fc.oneof(
  fc.constantFrom('', '   ', '\u0000', 'a\u0000b', '\u0007\u001b[2J', '\ud800', '\uffff'),
  fc.constantFrom(
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally.
    '${jndi:ldap://x}',
    '../../etc/passwd',
  ),
  fc.integer({ min: 300, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.string({ unit: 'grapheme', minLength: 301, maxLength: 400 }),
)

const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  badString,
  fc.array(fc.anything(), { maxLength: 4 }),
  fc.object({ maxDepth: 2 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e308),
)

/** Deeply nested arrays and objects, past any schema's depth. */
const deepJunk = fc.integer({ min: 50, max: 3000 }).map((depth) => {
  let value: unknown = 'bottom'
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value }
  return value
})

type Body = { contentType: string | null; text: string }

const json = (value: unknown): string => JSON.stringify(value) ?? 'null'

const body: fc.Arbitrary<Body> = fc.oneof(
  // Objects with the real field names and wrong values, some fields missing.
  fc
    .dictionary(fc.constantFrom(...KNOWN_KEYS), junkValue, { maxKeys: 8 })
    .map((value) => ({ contentType: 'application/json', text: json(value) })),
  // Anything at all as JSON, including arrays, numbers, strings, null and unicode keys.
  fc.anything().map((value) => ({ contentType: 'application/json', text: json(value) })),
  deepJunk.map((value) => ({ contentType: 'application/json', text: json(value) })),
  // Broken JSON.
  fc
    .constantFrom(
      '{',
      '{"a":',
      '[1,2',
      'nul',
      '{"a":1,}',
      "{'a':1}",
      '\u0000',
      '{"a":"\\ud800"',
      '',
    )
    .map((text) => ({ contentType: 'application/json', text })),
  fc.string().map((text) => ({ contentType: 'application/json; charset=utf-8', text })),
  // Not JSON at all, or no content type.
  fc
    .tuple(
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'image/png',
        null,
      ),
      fc.string({ maxLength: 200 }),
    )
    .map(([contentType, text]) => ({ contentType, text })),
  // Larger than the body limit.
  fc
    .integer({ min: MAX_BODY_BYTES + 1, max: MAX_BODY_BYTES * 3 })
    .map((size) => ({ contentType: 'application/json', text: json({ email: 'x'.repeat(size) }) })),
)

// Path values that never name an existing row: huge or impossible ids and junk text.
const pathValue = fc.oneof(
  fc.constantFrom('0', '-1', '1e3', '0x10', '2147483648', '99999999999999999999', ' ', '%00'),
  fc.integer({ min: 5_000_000, max: 2_147_483_647 }).map(String),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
  fc.string({ minLength: 1, maxLength: 5000 }),
)

const query = fc.option(
  fc.dictionary(
    fc.constantFrom('practice', 'limit', 'offset', 'code', 'id', 'x'),
    fc.oneof(fc.string({ maxLength: 40 }), fc.integer().map(String)),
    { maxKeys: 3 },
  ),
  { nil: undefined },
)

/** Row counts of every table of the schema. */
async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of Object.values(schema)) {
    if (!(table instanceof PgTable)) continue
    const name = getTableName(table)
    const [row] = await t.db.select({ n: sql<number>`count(*)::int` }).from(table)
    counts[name] = Number(row?.n ?? 0)
  }
  return counts
}

describe('bad input never reaches a 5xx, a stack trace or the database', () => {
  let t: TestApp
  let routes: ApiRoute[]
  const tally = { sent: 0, fiveHundreds: 0, byStatus: new Map<number, number>() }

  beforeAll(async () => {
    // In-memory PGlite: thousands of requests stay quick; the PostgreSQL suites cover the rest.
    const pglite = httpBackends().find((backend) => backend.name === 'pglite')
    if (!pglite) throw new Error('no PGlite backend')
    t = await createTestApp(pglite)
    routes = apiRoutes(t.app)
    // The demo practice's payments are connected, as a practice taking members has them.
    const connected = await t.request('/api/practice/payments/connect', {
      method: 'POST',
      token: t.demo.adminToken,
    })
    expect(connected.status).toBe(200)
  })
  afterAll(async () => {
    const statuses = [...tally.byStatus.entries()].sort(([a], [b]) => a - b)
    console.info(
      `bad input: ${tally.sent} requests to ${routes.length} routes, ${tally.fiveHundreds} answered 5xx; statuses ${statuses.map(([s, n]) => `${s}×${n}`).join(' ')}`,
    )
    await t.close()
  })

  it('refuses a NUL character, which PostgreSQL text cannot hold, with a 400 (found by this suite)', async () => {
    const response = await t.request('/api/patients', {
      method: 'POST',
      token: t.demo.adminToken,
      json: { first_name: 'a\u0000b', last_name: 'Nul' },
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /NUL character/,
    )
  })

  it('refuses a signed payment event of another shape with a 400, never a 500 the gateway retries', async () => {
    for (const payload of ['{}', '[]', '{"id":"evt_x","type":"charge.succeeded"}', '{"id":5}']) {
      const response = await t.app.request('/api/webhooks/payments', {
        method: 'POST',
        headers: { 'Stripe-Signature': signEvent(payload, TEST_WEBHOOK_SECRET) },
        body: payload,
      })
      expect(response.status, payload).toBe(400)
      expect(v.is(ApiErrorBodySchema, await response.json()), payload).toBe(true)
    }
  })

  it('answers every route, with every kind of junk, with a 4xx in the JSON error shape', async () => {
    const before = await rowCounts(t)
    expect(routes.length).toBeGreaterThan(35)
    for (const route of routes) {
      const safe = route.method === 'GET' || route.method === 'HEAD'
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            params: fc.func(pathValue),
            query,
            body: safe ? fc.constant(null) : body,
            signedIn: fc.boolean(),
          }),
          async ({ params, query: search, body: sent, signedIn }) => {
            let path = fillPath(route.path, (name) => String(params(name)))
            if (search) path += `?${new URLSearchParams(search)}`
            const headers = new Headers()
            // A fresh session each time, so a logout in one case never ends the next one's.
            if (signedIn) headers.set('Authorization', `Bearer ${await mintToken(t.demo.admin)}`)
            if (sent?.contentType) headers.set('Content-Type', sent.contentType)
            const response = await t.app.request(path, {
              method: route.method,
              headers,
              ...(sent ? { body: sent.text } : {}),
            })
            tally.sent++
            tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1)
            if (response.status >= 500) tally.fiveHundreds++
            const text = await response.text()
            const where = `${route.method} ${path.slice(0, 120)} → ${response.status} ${text.slice(0, 200)}`
            expect(text, where).not.toMatch(/\n\s+at |\.ts:\d+|node_modules|Error: /)
            const inputless = INPUTLESS.has(route.key) || OPTIONAL_INPUT.has(route.key)
            const ok = inputless ? response.status < 300 || response.status === 401 : false
            if (!ok) {
              expect(response.status >= 400 && response.status < 500, where).toBe(true)
              const textAnswer =
                route.key === 'POST /api/auth/check-email' &&
                (response.headers.get('Content-Type') ?? '').startsWith('text/plain')
              if (!textAnswer) {
                const parsed = v.safeParse(ApiErrorBodySchema, JSON.parse(text))
                if (!parsed.success) throw new Error(`not the JSON error shape: ${where}`)
                expect(parsed.output.error.status, where).toBe(response.status)
                expect(parsed.output.error.message.length, where).toBeGreaterThan(0)
              }
            }
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 7 },
      )
    }
    expect(tally.fiveHundreds).toBe(0)
    expect(tally.sent).toBeGreaterThanOrEqual(2000)

    const after = await rowCounts(t)
    for (const name of MAY_GROW) {
      delete before[name]
      delete after[name]
    }
    expect(after).toEqual(before)
  }, 300_000)
})
