import { randomBytes } from 'node:crypto'
import { type Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { getCookie, setCookie } from 'hono/cookie'
import { createMiddleware } from 'hono/factory'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { OkAnswerSchema } from '#domain/api-answers.ts'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { createAuditLog } from '#server/audit/audit.ts'
import type { AppConfig, AppDeps, AppEnv, ServerContext } from '#server/context.ts'
import type { Database } from '#server/db/client.ts'
import { isConflictError } from '#server/db/retry.ts'
import { createDatabaseFileStore, createDiskFileStore } from '#server/files/file-store.ts'
import { ApiError, apiErrorOf, errorBody } from '#server/http/errors.ts'
import { CachedRouter } from '#server/http/router.ts'
import { xsrfCheck } from '#server/http/xsrf.ts'
import { DomainError } from '#server/lib/domain-error.ts'
import { consoleLogger, type Logger, postgresCode } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { MAIL_TEMPLATES } from '#server/mail-templates.ts'
import { createOutboundQueue } from '#server/messaging/outbound.ts'
import { appointmentRoutes } from '#server/modules/appointments/index.ts'
import { authRoutes, usersPermissionsRoutes } from '#server/modules/auth/index.ts'
import { procedureRoutes, productRoutes } from '#server/modules/catalogue/index.ts'
import { devRoutes } from '#server/modules/dev/index.ts'
import {
  ledgerRoutes,
  patientLedgerRoutes,
  programmeRuleRoutes,
} from '#server/modules/ledger/index.ts'
import {
  billingClockRoutes,
  cardLinkRoutes,
  createBillingClock,
  membershipPlanRoutes,
  membershipRoutes,
  patientMembershipRoutes,
  paymentAccountRoutes,
  paymentWebhookRoutes,
} from '#server/modules/memberships/index.ts'
import { nextechRoutes } from '#server/modules/nextech/index.ts'
import { activityRoutes, patientRoutes } from '#server/modules/patients/index.ts'
import {
  personnelRegisterRoutes,
  personnelRoutes,
  userRoutes,
} from '#server/modules/personnel/index.ts'
import { practiceApi, UPLOAD_PATH } from '#server/modules/practice/index.ts'
import {
  offerRoutes,
  oneClickUnsubscribeRoutes,
  patientPageRoutes,
  promotionRoutes,
} from '#server/modules/promotions/index.ts'
import { activityLogRoutes, reportRoutes } from '#server/modules/reports/index.ts'
import { signUpRoutes, testTokenRoutes } from '#server/modules/sign-up/index.ts'
import { patientRedemptionRoutes, visitRoutes } from '#server/modules/visits/index.ts'
import { walletRoutes } from '#server/modules/wallet/index.ts'
import { createNextechConnector } from '#server/nextech/connector.ts'
import { NEXTECH_SANDBOX } from '#server/nextech/sandbox.ts'
import { operation } from '#server/openapi/operation.ts'
import { openApiRoutes } from '#server/openapi/routes.ts'
import { databaseCatalog } from '#server/payments/catalog.ts'
import { createPaymentProvider, databaseGatewayStore } from '#server/payments/index.ts'
import {
  createStripeMemberPayments,
  createTestMemberPayments,
  type MemberPayments,
} from '#server/payments/member-gateway.ts'
import type { PaymentProvider } from '#server/payments/provider.ts'
import type { TestGateway } from '#server/payments/test-gateway.ts'
import { clientIp } from '#server/security/client-ip.ts'
import { isSecuredResponse, securityHeaders } from '#server/security/headers.ts'
import { HashingBusyError, passwordHashing } from '#server/security/passwords.ts'
import { createMemoryRateLimitStore } from '#server/security/rate-limit.ts'
import { serveSpa } from '#server/static.ts'
import { walletPracticeLookup } from '#server/wallet-practice.ts'

export type { AppConfig, AppDeps, AuthUser, ServerContext } from '#server/context.ts'

/** Largest request body the API reads (no input reaches a 5xx). */
export const MAX_BODY_BYTES = 100 * 1024

/**
 * Hands every browser that loads a page an `XSRF-TOKEN` cookie (readable by the SPA, which echoes
 * it as `X-XSRF-TOKEN` on unsafe calls; server/http/xsrf.ts checks the pair). API answers do
 * not set it: a client that never loaded a page is a bearer-token client, not a browser
 * (docs/decisions/001-xsrf-double-submit.md). Hashed assets are skipped so that shared caches may
 * keep them.
 */
function xsrfCookie(config: AppConfig) {
  return createMiddleware(async (c, next) => {
    const path = c.req.path
    // Decided before the handlers run, so API calls pass straight through.
    if (path === '/api' || path.startsWith('/api/') || path.startsWith('/assets/')) return next()
    await next()
    if (getCookie(c, 'XSRF-TOKEN')) return
    setCookie(c, 'XSRF-TOKEN', randomToken(), {
      path: '/',
      sameSite: 'Strict',
      httpOnly: false,
      secure: config.production,
    })
  })
}

/** The 503 of a request turned away because password hashing is at capacity. */
export const SERVER_BUSY_MESSAGE = 'The server is busy. Please try again in a moment.'

/**
 * The 503 of a request whose transaction kept meeting another one (a deadlock or a serialization
 * failure, retried by server/db/retry.ts until it gave up): nothing was changed, and the same
 * request a second later normally goes through.
 */
export const CONFLICTING_CHANGE_MESSAGE =
  'The server was busy with a conflicting change. Try again.'

/** How long a client waits after {@link CONFLICTING_CHANGE_MESSAGE} (`Retry-After`). */
export const CONFLICT_RETRY_AFTER_SECONDS = 1

const NAMES_BY_STATUS: Record<number, string> = {
  400: API_ERROR_NAMES.validation,
  401: API_ERROR_NAMES.unauthorized,
  403: API_ERROR_NAMES.forbidden,
  404: API_ERROR_NAMES.notFound,
  409: API_ERROR_NAMES.conflict,
  413: API_ERROR_NAMES.payloadTooLarge,
  415: API_ERROR_NAMES.unsupportedMediaType,
  429: API_ERROR_NAMES.rateLimit,
}

/** The pattern of the route that failed (`/api/patients/:id`), else the path with ids masked. */
function routeOf(c: Context<AppEnv>): string {
  const pattern = c.req.routePath
  if (pattern && !pattern.endsWith('*')) return pattern
  return c.req.path.replace(/[A-Za-z0-9_-]{16,}/g, ':id')
}

/** One JSON error shape for everything; the stack goes to the log only. */
function errorHandler(log: Logger) {
  return (thrown: Error, c: Context<AppEnv>) => {
    const error = thrown instanceof DomainError ? apiErrorOf(thrown) : thrown
    if (error instanceof ApiError) {
      const retryAfter = (error.details as { retryAfterSeconds?: unknown }).retryAfterSeconds
      if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter))
      return c.json(error.toBody(), error.status)
    }
    if (error instanceof HashingBusyError) {
      // A flood of password checks: come back in a moment rather than wait behind it.
      c.header('Retry-After', String(error.retryAfterSeconds))
      return c.json(
        errorBody(503, API_ERROR_NAMES.unavailable, SERVER_BUSY_MESSAGE, {
          retryAfterSeconds: error.retryAfterSeconds,
        }),
        503,
      )
    }
    if (error instanceof HTTPException) {
      const status = error.status as ContentfulStatusCode
      const message =
        status === 400 && /json/i.test(error.message)
          ? 'Malformed JSON body: the request body is not valid JSON.'
          : error.message || 'The request could not be handled.'
      return c.json(
        errorBody(status, NAMES_BY_STATUS[status] ?? API_ERROR_NAMES.validation, message),
        status,
      )
    }
    if (isConflictError(error)) {
      // Another request's change, not a fault: a warning with the SQLSTATE, and a 503 to retry.
      const route = `${c.req.method} ${routeOf(c)}`
      log.warn(`A conflicting change outlasted the retries on ${route}`, {
        route,
        state: postgresCode(error),
      })
      c.header('Retry-After', String(CONFLICT_RETRY_AFTER_SECONDS))
      return c.json(
        errorBody(503, API_ERROR_NAMES.unavailable, CONFLICTING_CHANGE_MESSAGE, {
          retryAfterSeconds: CONFLICT_RETRY_AFTER_SECONDS,
        }),
        503,
      )
    }
    // Constraint checks race with validation (two requests at once); they are the caller's 4xx.
    switch (postgresCode(error)) {
      case '23505':
        return c.json(errorBody(409, API_ERROR_NAMES.conflict, 'This record already exists.'), 409)
      case '23503':
        return c.json(
          errorBody(409, API_ERROR_NAMES.conflict, 'A record this one refers to does not exist.'),
          409,
        )
      case '22P02':
      case '22001':
      case '22021':
      case '54000':
      case '22003':
      case '22007':
      case '22008':
      case '23514':
        return c.json(
          errorBody(400, API_ERROR_NAMES.validation, 'A value in the request is not valid.'),
          400,
        )
    }
    // The route's pattern, not the path: paths carry unsubscribe ids and reset codes. The error
    // is logged by log.ts's describeError: a database failure as SQLSTATE and constraint only.
    const route = `${c.req.method} ${routeOf(c)}`
    log.error(`Unhandled error on ${route}`, error, { route })
    return c.json(
      errorBody(
        500,
        API_ERROR_NAMES.internal,
        'Something went wrong on our side. Please try again.',
      ),
      500,
    )
  }
}

/**
 * The patients' payments beside the practice's own: the test gateway's connected accounts when
 * payments run in test mode (its tokens, on the billing clock), else Stripe Connect.
 */
function memberPaymentsFor(
  payments: PaymentProvider,
  db: Database,
  now: () => Date,
): MemberPayments {
  if (payments.mode === 'test' && 'takeCard' in payments) {
    return createTestMemberPayments({
      db,
      gateway: payments as TestGateway,
      clock: createBillingClock(db, now).now,
    })
  }
  return createStripeMemberPayments({
    secretKey: process.env.STRIPE_SECRET_KEY?.trim() ?? '',
    webhookSecret: process.env.STRIPE_WEBHOOK_SECRET?.trim() ?? '',
  })
}

/**
 * Builds the whole server: the JSON API under `/api` and, when
 * `config.distDir` is set, the SPA next to it. Every dependency is injected, so tests run it
 * with `app.request()` on an in-memory database and no port.
 */
export function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date())
  const log = deps.log ?? consoleLogger
  const payments =
    deps.payments ??
    createPaymentProvider(process.env, {
      now,
      catalog: databaseCatalog(deps.db),
      store: databaseGatewayStore(deps.db),
    })
  const ctx: ServerContext = {
    ...deps,
    // Without a key of its own (tests), a random one: what it seals lives as long as this app.
    config: { ...deps.config, dataKey: deps.config.dataKey ?? randomBytes(32) },
    now,
    log,
    payments,
    memberPayments: deps.memberPayments ?? memberPaymentsFor(payments, deps.db, now),
    rateLimitStore: deps.rateLimitStore ?? createMemoryRateLimitStore(),
    hashing: deps.hashing ?? passwordHashing,
    files:
      deps.files ??
      (deps.config.uploadsDir
        ? createDiskFileStore(deps.config.uploadsDir)
        : createDatabaseFileStore(deps.db)),
    outbound:
      deps.outbound ??
      createOutboundQueue({
        db: deps.db,
        mail: deps.mail,
        sms: deps.sms,
        log,
        now,
        publicUrl: deps.config.publicUrl,
        templates: MAIL_TEMPLATES,
      }),
    nextech: deps.nextech ?? createNextechConnector(deps.config, now),
    clientIp: (c) => clientIp(c, { trustProxy: deps.config.trustProxy }),
    audit: createAuditLog(deps.db, { now, log }),
  }
  const app = new Hono<AppEnv>({ router: new CachedRouter() })
  app.use(securityHeaders(ctx.config))
  app.use(xsrfCookie(ctx.config))
  app.onError(errorHandler(ctx.log))
  app.notFound((c) =>
    c.json(
      errorBody(404, API_ERROR_NAMES.notFound, `Nothing answers ${c.req.method} ${c.req.path}.`),
      404,
    ),
  )

  const api = new Hono<AppEnv>()
  const tooLarge = (c: Context) =>
    c.json(
      errorBody(
        413,
        API_ERROR_NAMES.payloadTooLarge,
        `The request body is larger than ${MAX_BODY_BYTES / 1024} KB.`,
      ),
      413,
    )
  const limitBody = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge })
  api.use(async (c, next) => {
    // bodyLimit reads c.req.raw.body, which makes the Node adapter build a whole fetch Request for
    // every call (a fifth of the time of a small GET). GET and HEAD bodies are never
    // read; a declared Content-Length is checked as bodyLimit would; only streamed bodies need it.
    const method = c.req.method
    if (method === 'GET' || method === 'HEAD') return next()
    // An image upload may be 2 MB: its route reads the body against its own limit.
    if (method === 'POST' && c.req.path === UPLOAD_PATH) return next()
    const length = c.req.header('content-length')
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length, 10) > MAX_BODY_BYTES ? tooLarge(c) : await next()
    }
    return await limitBody(c, next)
  })
  api.use(async (c, next) => {
    // API answers carry personal data and tokens: no browser or proxy cache may keep them. Every
    // route below relies on this; one that may be cached sets its own Cache-Control.
    c.header('Cache-Control', 'no-store')
    await next()
    // A secured response (server/security/headers.ts) carries its own, and reading its headers
    // would cost a Headers object per answer: a quarter of a cached answer's time.
    if (isSecuredResponse(c.res)) return
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store')
  })
  // The RFC 8058 one-click unsubscribe, before the XSRF check: a mail client posts it without our
  // page's cookie or header, and it reads no session (its random token is the only key), so there
  // is no ambient credential a forged request could ride on (docs/decisions/012-patient-email.md).
  api.route('/unsubscribe', oneClickUnsubscribeRoutes(ctx))
  // The payment gateway's webhooks: posted by the gateway, without our cookie; the signature is
  // the only key (server/modules/memberships/routes.ts).
  api.route('/webhooks/payments', paymentWebhookRoutes(ctx))
  api.use(xsrfCheck())
  api.get(
    '/health',
    operation({
      summary: 'Health check',
      description: 'Answers while the server runs; for load balancers and uptime checks.',
      tag: 'Operations',
      public: true,
      responses: { 200: { description: 'The server is up.', json: OkAnswerSchema } },
    }),
    (c) => c.json({ ok: true }),
  )
  // One line per resource; new resources (auth, personnel, ...) mount the same way.
  api.route('/practice/rules', programmeRuleRoutes(ctx))
  api.route('/practice/integrations/nextech', nextechRoutes(ctx))
  api.route('/', practiceApi(ctx))
  api.route('/patients', patientRoutes(ctx))
  api.route('/patients', patientMembershipRoutes(ctx))
  api.route('/membership-plans', membershipPlanRoutes(ctx))
  api.route('/memberships', membershipRoutes(ctx))
  api.route('/membership-card', cardLinkRoutes(ctx))
  api.route('/practice/payments', paymentAccountRoutes(ctx))
  api.route('/patients', patientLedgerRoutes(ctx))
  api.route('/ledger', ledgerRoutes(ctx))
  api.route('/procedures', procedureRoutes(ctx))
  api.route('/products', productRoutes(ctx))
  api.route('/appointments', appointmentRoutes(ctx))
  api.route('/activities', activityRoutes(ctx))
  api.route('/promotions', promotionRoutes(ctx))
  // The public offer page's calls: the personal link's token is the key.
  api.route('/offers', offerRoutes(ctx))
  // The patient's wallet: sign-in by code (public), then a patient session, never a staff token.
  api.route('/wallet', walletRoutes(ctx))
  api.route('/users', userRoutes(ctx))
  api.route('/auth', authRoutes(ctx))
  api.route('/auth', signUpRoutes(ctx))
  api.route('/auth', personnelRegisterRoutes(ctx, { rateLimitStore: ctx.rateLimitStore }))
  api.route('/personnel', personnelRoutes(ctx))
  api.route('/users-permissions', usersPermissionsRoutes(ctx))
  // The front desk: visits, redemptions and the CSV exports.
  api.route('/visits', visitRoutes(ctx))
  api.route('/patients', patientRedemptionRoutes(ctx))
  api.route('/reports', reportRoutes(ctx))
  api.route('/audit', activityLogRoutes(ctx))
  api.route('/payments', testTokenRoutes(ctx))
  if (!ctx.config.production) api.route('/dev', devRoutes(ctx))
  if (!ctx.config.production) api.route('/dev', billingClockRoutes(ctx))
  // The contract of every route above: GET /api/openapi.json, and its reference at GET /api/docs.
  api.route(
    '/',
    openApiRoutes(() => app.routes),
  )

  app.route('/api', api)
  // Outside production, without Nextech addresses: the Nextech sandbox a tester can call too.
  if (ctx.nextech.sandbox && !ctx.config.production) {
    app.route(NEXTECH_SANDBOX.mountPath, ctx.nextech.sandbox.app)
  }
  // The pages a patient opens from an e-mail, whole from the server.
  app.route('/', patientPageRoutes(ctx))
  if (ctx.config.distDir) {
    app.use(
      serveSpa(ctx.config.distDir, {
        log: ctx.log,
        settings: {
          'hcaptcha-sitekey': ctx.config.hcaptchaSiteKey,
          'support-email': ctx.config.supportEmail,
        },
        walletPractice: walletPracticeLookup(ctx.db),
      }),
    )
  }
  contexts.set(app, ctx)
  return app
}

const contexts = new WeakMap<object, ServerContext>()

/** The context an app was built with: what the server's jobs (the Nextech schedule) share. */
export function contextOf(app: object): ServerContext {
  const ctx = contexts.get(app)
  if (!ctx) throw new Error('This app was not made by createApp')
  return ctx
}

/** The app's type, for typed clients (`hono/client`) and tests. */
export type AppType = ReturnType<typeof createApp>
