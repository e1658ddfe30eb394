import { Hono } from 'hono'
import * as v from 'valibot'
import {
  CancelInputSchema,
  CardInputSchema,
  CardLinkAnswerSchema,
  CardLinkSchema,
  ChangePlanInputSchema,
  ClockAnswerSchema,
  ClockInputSchema,
  EnrolInputSchema,
  MEMBERSHIP_STATUSES,
  MembershipBankAnswerSchema,
  MembershipChangeAnswerSchema,
  MembershipEventsAnswerSchema,
  MembershipPlanSchema,
  MembershipPlansAnswerSchema,
  MembershipSchema,
  MembershipsAnswerSchema,
  PatientMembershipsAnswerSchema,
  PauseInputSchema,
  PaymentAccountSchema,
  PlanInputSchema,
  RETRY_SCHEDULE_DAYS,
  WebhookAnswerSchema,
} from '#domain/memberships.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest, notFound } from '#server/http/errors.ts'
import { hasNulCharacter, idParams, jsonBody, parseOr400, toId } from '#server/http/validate.ts'
import { OTHER_PRACTICE, operation, tokenParam } from '#server/openapi/operation.ts'
import { PaymentError } from '#server/payments/provider.ts'
import { fromLoopback } from '#server/security/loopback.ts'
import { type Billing, createBilling } from './billing.ts'
import { createMembershipService, type MembershipService } from './service.ts'

const built = new WeakMap<ServerContext, { billing: Billing; service: MembershipService }>()

/** The app's billing and membership service, one of each per app (routes, jobs and tests share them). */
export function membershipsOf(ctx: ServerContext) {
  let found = built.get(ctx)
  if (!found) {
    const billing = createBilling({
      db: ctx.db,
      payments: ctx.memberPayments,
      outbound: ctx.outbound,
      publicUrl: ctx.config.publicUrl,
      now: ctx.now,
      log: ctx.log,
    })
    const service = createMembershipService({
      db: ctx.db,
      payments: ctx.memberPayments,
      billing,
      now: ctx.now,
    })
    found = { billing, service }
    built.set(ctx, found)
  }
  return found
}

const PREVIEW_QUERY = {
  preview: {
    description: '`true`: answer what the change would cost (`preview`) and change nothing.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
} as const

const changeDoc = (summary: string, description: string) =>
  operation({
    summary,
    description,
    tag: 'Memberships',
    path: { id: { description: 'The membership id.', schema: { type: 'integer', minimum: 1 } } },
    query: PREVIEW_QUERY,
    responses: {
      200: {
        description: 'The membership as changed, or with `?preview=true` the preview.',
        json: MembershipChangeAnswerSchema,
      },
      402: "The card was declined: the card's sentence; nothing changed.",
      403: 'The role may not make this change; the sentence says who can.',
      404: OTHER_PRACTICE,
      409: 'The membership is in a status where this change is not possible; the sentence says so.',
    },
  })

const isPreview = (c: { req: { query: (k: string) => string | undefined } }) =>
  c.req.query('preview') === 'true'

/**
 * `/membership-plans`: the practice's plans (every role reads; Managers and Admins build,
 * change — a change of price, cadence, terms or perks makes a new version, existing members keep
 * theirs — and archive).
 */
export function membershipPlanRoutes(ctx: ServerContext) {
  const manage = requirePermission(ctx, 'memberships.plans')
  const service = () => membershipsOf(ctx).service
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'List membership plans',
        description:
          "The practice's plans that are not archived, by name (`archived=true`: the archived ones), each at its current version with its members.",
        tag: 'Memberships',
        query: {
          archived: {
            description: '`true` lists the archived plans instead.',
            schema: { type: 'string', enum: ['true', 'false'] },
          },
        },
        responses: { 200: { description: 'The plans.', json: MembershipPlansAnswerSchema } },
      }),
      anyStaffMember(),
      async (c) =>
        c.json({
          data: await service().listPlans(
            c.var.user.practice_id,
            c.req.query('archived') === 'true',
          ),
        }),
    )
    .post(
      '/',
      operation({
        summary: 'Build a membership plan',
        description:
          'Name, description, price per cycle, cadence, setup fee, minimum term, notice period and perks.',
        tag: 'Memberships',
        responses: {
          201: { description: 'The new plan (version 1).', json: MembershipPlanSchema },
          400: 'A field is not acceptable; the sentence says which.',
          403: 'Only a manager or an admin builds plans.',
          409: 'Another active plan has the name.',
        },
      }),
      manage,
      jsonBody(PlanInputSchema),
      async (c) => c.json(await service().createPlan(c.var.user, c.req.valid('json')), 201),
    )
    .get(
      '/:id',
      operation({
        summary: 'Read a membership plan',
        description: 'The plan at its current version.',
        tag: 'Memberships',
        responses: {
          200: { description: 'The plan.', json: MembershipPlanSchema },
          404: OTHER_PRACTICE,
        },
      }),
      anyStaffMember(),
      idParams('id'),
      async (c) => c.json(await service().getPlan(c.var.user.practice_id, c.req.valid('param').id)),
    )
    .put(
      '/:id',
      operation({
        summary: 'Change a membership plan',
        description:
          "Replaces the plan's fields. A change of price, cadence, setup fee, terms or perks makes a new version for new members; existing members stay on theirs until staff move them.",
        tag: 'Memberships',
        responses: {
          200: { description: 'The plan as saved.', json: MembershipPlanSchema },
          400: 'A field is not acceptable.',
          403: 'Only a manager or an admin changes plans.',
          404: OTHER_PRACTICE,
          409: 'Another active plan has the name.',
        },
      }),
      manage,
      idParams('id'),
      jsonBody(PlanInputSchema),
      async (c) =>
        c.json(
          await service().updatePlan(c.var.user, c.req.valid('param').id, c.req.valid('json')),
        ),
    )
    .post(
      '/:id/archive',
      operation({
        summary: 'Archive a membership plan',
        description: 'No new members can join it; its members keep it. A plan is never deleted.',
        tag: 'Memberships',
        responses: {
          200: { description: 'The archived plan.', json: MembershipPlanSchema },
          403: 'Only a manager or an admin archives plans.',
          404: OTHER_PRACTICE,
        },
      }),
      manage,
      idParams('id'),
      async (c) => c.json(await service().archivePlan(c.var.user, c.req.valid('param').id)),
    )
}

/** `POST/GET /patients/{id}/memberships`: enrolment (every staff role) and the patient's memberships. */
export function patientMembershipRoutes(ctx: ServerContext) {
  const service = () => membershipsOf(ctx).service
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .post(
      '/:id/memberships',
      operation({
        summary: 'Enrol a patient in a membership',
        description:
          "Saves the card on the practice's connected account, takes the first charge (setup fee and first cycle), records the patient's express consent to automatic renewal (agreement version, time, who took it, how) and issues the first cycle's perks. Replaying the same `idempotencyKey` answers the first membership.",
        tag: 'Memberships',
        responses: {
          201: { description: 'The membership, after the first charge.', json: MembershipSchema },
          200: { description: 'The membership this key already made.', json: MembershipSchema },
          400: 'A field is not acceptable (the card token, the consent).',
          402: "The card was declined: the card's sentence; nothing was created.",
          404: OTHER_PRACTICE,
          409: 'Payments are not connected, the plan is archived, the agreement changed, or the patient already has a membership.',
        },
      }),
      requirePermission(ctx, 'memberships.enrol'),
      idParams('id'),
      jsonBody(EnrolInputSchema),
      async (c) => {
        const { membership, replay } = await service().enrol(
          c.var.user,
          c.req.valid('param').id,
          c.req.valid('json'),
        )
        return c.json(membership, replay ? 200 : 201)
      },
    )
    .get(
      '/:id/memberships',
      operation({
        summary: "List a patient's memberships",
        description: 'Newest first: the one that runs, then those that ended.',
        tag: 'Memberships',
        responses: {
          200: {
            description: 'The memberships.',
            json: PatientMembershipsAnswerSchema,
          },
          404: OTHER_PRACTICE,
        },
      }),
      anyStaffMember(),
      idParams('id'),
      async (c) =>
        c.json({
          data: await service().patientMemberships(c.var.user.practice_id, c.req.valid('param').id),
        }),
    )
}

/** `/memberships`: the practice's memberships, their changes and timelines. */
export function membershipRoutes(ctx: ServerContext) {
  const service = () => membershipsOf(ctx).service
  const staff = requirePermission(ctx, 'memberships.enrol')
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'List memberships',
        description: 'Newest first, 50 a page, filtered by status and plan.',
        tag: 'Memberships',
        query: {
          status: {
            description: 'Only memberships in this status.',
            schema: { type: 'string', enum: [...MEMBERSHIP_STATUSES] },
          },
          plan_id: {
            description: 'Only members of this plan (any version).',
            schema: { type: 'string', pattern: '^\\d{1,9}$' },
          },
          page: {
            description: 'Page number, from 1.',
            schema: { type: 'string', pattern: '^\\d{1,6}$' },
          },
        },
        responses: {
          200: { description: 'A page of memberships.', json: MembershipsAnswerSchema },
          400: 'A filter is not acceptable.',
        },
      }),
      anyStaffMember(),
      async (c) => {
        const status = c.req.query('status')
        if (status && !(MEMBERSHIP_STATUSES as readonly string[]).includes(status)) {
          throw badRequest(`Status must be one of ${MEMBERSHIP_STATUSES.join(', ')}.`)
        }
        const plan = c.req.query('plan_id')
        const page = c.req.query('page')
        return c.json(
          await service().listMemberships(c.var.user.practice_id, {
            status,
            planId: plan ? toId(plan, 'plan_id') : undefined,
            page: page ? toId(page, 'page') : 1,
          }),
        )
      },
    )
    .get(
      '/:id',
      operation({
        summary: 'Read a membership',
        description: 'Its plan version, status, period, bank, allowances, next payment and card.',
        tag: 'Memberships',
        responses: {
          200: { description: 'The membership.', json: MembershipSchema },
          404: OTHER_PRACTICE,
        },
      }),
      anyStaffMember(),
      idParams('id'),
      async (c) =>
        c.json(await service().getMembership(c.var.user.practice_id, c.req.valid('param').id)),
    )
    .get(
      '/:id/events',
      operation({
        summary: "Read a membership's timeline",
        description: 'Charges, failures, perks issued, notices and changes, newest first.',
        tag: 'Memberships',
        responses: {
          200: { description: 'The events.', json: MembershipEventsAnswerSchema },
          404: OTHER_PRACTICE,
        },
      }),
      anyStaffMember(),
      idParams('id'),
      async (c) =>
        c.json({ data: await service().events(c.var.user.practice_id, c.req.valid('param').id) }),
    )
    .get(
      '/:id/bank',
      operation({
        summary: "Read a membership's bank",
        description:
          "Every staff role (Staff, Manager, Admin): the bank is the patient's own money, needed at the desk. Every entry, newest first, each with the balance it left: paid in with a cycle (`credit`), used at a visit (`use`), put back when that visit was undone (`restore`), taken back with a refunded cycle (`refund`); and the balance now.",
        tag: 'Memberships',
        responses: {
          200: { description: 'The bank and its entries.', json: MembershipBankAnswerSchema },
          404: OTHER_PRACTICE,
        },
      }),
      anyStaffMember(),
      idParams('id'),
      async (c) => c.json(await service().bank(c.var.user.practice_id, c.req.valid('param').id)),
    )
    .post(
      '/:id/pause',
      changeDoc(
        'Pause a membership',
        'Pauses for 1 to 3 cycles: no charges, no perks; billing resumes that many cycles after the paid period ends.',
      ),
      staff,
      idParams('id'),
      jsonBody(PauseInputSchema),
      async (c) =>
        c.json(
          await service().pause(
            c.var.user,
            c.req.valid('param').id,
            c.req.valid('json').cycles,
            isPreview(c),
          ),
        ),
    )
    .post(
      '/:id/resume',
      changeDoc(
        'Resume a membership',
        'Billing starts again: at the end of the period already paid, or now.',
      ),
      staff,
      idParams('id'),
      async (c) =>
        c.json(await service().resume(c.var.user, c.req.valid('param').id, isPreview(c))),
    )
    .post(
      '/:id/cancel',
      changeDoc(
        'Cancel a membership',
        "`at: period_end`: ends at the first cycle end that keeps the minimum term and the notice period (any staff role). `at: now` (Manager, Admin): ends now, with `refund: true` the unused part of the current cycle refunded and that cycle's banked value taken back from the bank as far as it is unspent (a `refund` entry of the bank). Without a refund the bank stays the patient's.",
      ),
      staff,
      idParams('id'),
      jsonBody(CancelInputSchema),
      async (c) =>
        c.json(
          await service().cancel(
            c.var.user,
            c.req.valid('param').id,
            c.req.valid('json'),
            isPreview(c),
          ),
        ),
    )
    .post(
      '/:id/undo-cancel',
      operation({
        summary: 'Keep a membership renewing',
        description: 'Takes back a cancellation at the end of the term before it takes effect.',
        tag: 'Memberships',
        responses: {
          200: { description: 'The membership.', json: MembershipSchema },
          404: OTHER_PRACTICE,
          409: 'It is not set to end.',
        },
      }),
      staff,
      idParams('id'),
      async (c) => c.json(await service().undoCancel(c.var.user, c.req.valid('param').id)),
    )
    .post(
      '/:id/change-plan',
      changeDoc(
        'Move a membership to another plan',
        '`at: now`: the price difference for the rest of the cycle is charged (or refunded) today; `at: period_end`: the new plan starts at the next renewal.',
      ),
      staff,
      idParams('id'),
      jsonBody(ChangePlanInputSchema),
      async (c) =>
        c.json(
          await service().changePlan(
            c.var.user,
            c.req.valid('param').id,
            c.req.valid('json'),
            isPreview(c),
          ),
        ),
    )
    .post(
      '/:id/retry-payment',
      changeDoc(
        'Charge a past-due membership now',
        'Charges the cycle due to the card on file now; safe against a retry running at the same time (one charge per cycle).',
      ),
      staff,
      idParams('id'),
      async (c) =>
        c.json(await service().retryPayment(c.var.user, c.req.valid('param').id, isPreview(c))),
    )
    .put(
      '/:id/card',
      operation({
        summary: "Change a membership's card",
        description: 'Saves the new card; a past-due or unpaid membership is charged at once.',
        tag: 'Memberships',
        responses: {
          200: { description: 'The membership.', json: MembershipSchema },
          402: "The card was declined (when saved, or when charged): the card's sentence.",
          404: OTHER_PRACTICE,
          409: 'The membership is over.',
        },
      }),
      staff,
      idParams('id'),
      jsonBody(CardInputSchema),
      async (c) =>
        c.json(
          await service().cardByStaff(
            c.var.user,
            c.req.valid('param').id,
            c.req.valid('json').payment_method_token,
          ),
        ),
    )
}

/** `/practice/payments`: the practice's payment account (Stripe Connect). */
export function paymentAccountRoutes(ctx: ServerContext) {
  const service = () => membershipsOf(ctx).service
  const answer = (row: Awaited<ReturnType<MembershipService['paymentAccount']>>) => ({
    connected: row !== null,
    provider: (row?.provider ?? null) as 'test' | 'stripe' | null,
    account_id: row?.account_id ?? null,
    connected_at: row?.connected_at.toISOString() ?? null,
    retry_schedule_days: [...RETRY_SCHEDULE_DAYS],
  })
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: "Read the practice's payment account",
        description:
          "Whether the practice's own Stripe account is connected, and the retry schedule of declined renewals.",
        tag: 'Settings',
        responses: { 200: { description: 'The account.', json: PaymentAccountSchema } },
      }),
      anyStaffMember(),
      async (c) => c.json(answer(await service().paymentAccount(c.var.user.practice_id))),
    )
    .post(
      '/connect',
      operation({
        summary: "Connect the practice's payment account",
        description:
          "Connects the practice's own Stripe account (Stripe Connect): its patients' membership payments go there. Connecting twice answers the first account.",
        tag: 'Settings',
        responses: {
          200: { description: 'The account.', json: PaymentAccountSchema },
          403: 'Only an admin connects the payment account.',
        },
      }),
      requirePermission(ctx, 'payments.connect'),
      async (c) => c.json(answer(await service().connect(c.var.user))),
    )
}

/**
 * `/membership-card/{token}`: the patient's card-update page behind the link of a declined
 * renewal's notice (public: the token is the only key, and it opens this one membership's card).
 */
export function cardLinkRoutes(ctx: ServerContext) {
  const service = () => membershipsOf(ctx).service
  const token = { token: tokenParam("The link's token.") }
  return new Hono<AppEnv>()
    .get(
      '/:token',
      operation({
        summary: 'Read a card-update link',
        description:
          "What the patient's page shows: the practice, the plan, the amount due and the card on file.",
        tag: 'Memberships',
        public: true,
        path: token,
        responses: {
          200: { description: 'The membership as the patient sees it.', json: CardLinkSchema },
          404: 'The link is unknown or no longer valid.',
        },
      }),
      async (c) => c.json(await service().cardLink(c.req.param('token'))),
    )
    .put(
      '/:token',
      operation({
        summary: 'Update the card from the link',
        description: 'Saves the new card; what the membership owes is charged at once.',
        tag: 'Memberships',
        public: true,
        path: token,
        responses: {
          200: {
            description: 'What happened.',
            json: CardLinkAnswerSchema,
          },
          402: "The card was declined when saved: the card's sentence.",
          404: 'The link is unknown or no longer valid.',
        },
      }),
      jsonBody(CardInputSchema),
      async (c) =>
        c.json(
          await service().cardFromLink(
            c.req.param('token'),
            c.req.valid('json').payment_method_token,
          ),
        ),
    )
}

/**
 * What the webhook reads of a verified event: its id and type (stored), and the object it is
 * about. A signed payload of another shape is the caller's 400, never a 500 the gateway retries.
 */
const WebhookEventShape = v.object({
  id: v.pipe(v.string(), v.regex(/^[\w.-]{1,255}$/, 'The event has no usable id.')),
  type: v.pipe(v.string(), v.regex(/^[\w.]{1,255}$/, 'The event has no usable type.')),
  data: v.object({
    object: v.object({
      id: v.optional(v.string()),
      metadata: v.optional(v.record(v.string(), v.string())),
      failure_message: v.optional(v.nullable(v.string())),
    }),
  }),
})

/**
 * `POST /webhooks/payments`: the gateway's signed events (Stripe's `Stripe-Signature`), each
 * applied once by its id. Public: the signature is the key. Answers 200 for an event already
 * applied, so the gateway stops sending it.
 */
export function paymentWebhookRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>().post(
    '/',
    operation({
      summary: 'Receive a payment event',
      description:
        "The payment gateway's signed events (`Stripe-Signature`), each applied once by its id: a charge's outcome whose answer was lost settles it.",
      tag: 'Memberships',
      public: true,
      responses: {
        200: {
          description: 'Received.',
          json: WebhookAnswerSchema,
        },
        400: 'The signature does not verify, or the event is not one the server reads.',
      },
    }),
    async (c) => {
      const payload = await c.req.text()
      const signature = c.req.header('stripe-signature') ?? ''
      let event: ReturnType<ServerContext['memberPayments']['verifyEvent']>
      try {
        event = ctx.memberPayments.verifyEvent(payload, signature)
      } catch (error) {
        if (error instanceof PaymentError) throw badRequest(error.message)
        throw error
      }
      if (hasNulCharacter(event)) throw badRequest('The event contains a NUL character (\\u0000).')
      parseOr400(WebhookEventShape, event)
      const { applied } = await membershipsOf(ctx).billing.applyEvent(event)
      return c.json({ received: true, applied })
    },
  )
}

/** `POST /dev/clock`: moves the billing clock and runs what falls due (outside production, loopback only). */
export function billingClockRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>().post(
    '/clock',
    operation({
      summary: 'Move the billing clock (development)',
      description:
        'Moves the billing clock forward by `days` and runs what falls due: renewals, retries, notices. Served only when `NODE_ENV` is not `production`, and only to the loopback interface.',
      tag: 'Operations',
      public: true,
      responses: {
        200: { description: 'The clock and what ran.', json: ClockAnswerSchema },
        400: '`days` is not acceptable.',
      },
    }),
    jsonBody(ClockInputSchema),
    async (c) => {
      if (!fromLoopback(c)) throw notFound(`Nothing answers ${c.req.method} ${c.req.path}.`)
      const { billing } = membershipsOf(ctx)
      await billing.clock.advance(c.req.valid('json').days)
      const run = await billing.runDue()
      await ctx.outbound.drain()
      return c.json({
        now: run.at.toISOString(),
        charged: run.charged,
        failed: run.failed,
        notices: run.notices,
      })
    },
  )
}

/**
 * Runs what falls due at the billing clock (renewals, retries, ended terms, card-expiry notices)
 * now and every `minutes` (BILLING_RUN_MINUTES; 0: only by `POST /dev/clock`). Several processes
 * may run it at once (billing.ts). Answers the function that stops it and waits for its run.
 */
export function scheduleBilling(ctx: ServerContext, minutes: number): () => Promise<void> {
  const { billing } = membershipsOf(ctx)
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let running: Promise<unknown> = Promise.resolve()
  const tick = () => {
    running = billing
      .runDue()
      .catch((error: unknown) => ctx.log.error('The billing run failed', error))
      .finally(() => {
        if (stopped || minutes <= 0) return
        timer = setTimeout(tick, minutes * 60_000)
        timer.unref()
      })
  }
  if (minutes > 0) tick()
  return async () => {
    stopped = true
    if (timer) clearTimeout(timer)
    await running
  }
}
