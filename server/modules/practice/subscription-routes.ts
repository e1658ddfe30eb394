import { type Context, Hono } from 'hono'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import type { Plan } from '#domain/plans.ts'
import { planAmountCents, selectedPlanIds } from '#domain/pricing.ts'
import {
  ChangeCardBodySchema,
  cardBrandName,
  SUBSCRIPTION_MESSAGES,
  type SubscriptionAnswer,
  SubscriptionAnswerSchema,
} from '#domain/subscription.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ApiError, conflict } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { PaymentError, type SubscriptionState } from '#server/payments/index.ts'
import { type BillingRow, billingOf, markSubscriptionCancelled, readAllPlans } from './queries.ts'

function paymentFailure(error: PaymentError): ApiError {
  return new ApiError(error.status, API_ERROR_NAMES.payment, error.message, { code: error.code })
}

/** Runs a provider call; a {@link PaymentError} becomes the API's answer with its message. */
async function provider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof PaymentError) throw paymentFailure(error)
    throw error
  }
}

/** The provider's subscription in the API's words (domain/subscription.ts). */
function toAnswer(state: SubscriptionState): SubscriptionAnswer {
  const ended = state.status === 'canceled'
  const periodEnd = state.currentPeriodEnd.toISOString()
  return {
    plans: state.items.map((item) => ({ id: item.priceId, name: item.name, amount: item.amount })),
    term: state.items[0]?.interval ?? 'month',
    status: ended
      ? 'canceled'
      : state.status === 'past_due' || state.status === 'unpaid'
        ? 'past_due'
        : 'active',
    card: state.card
      ? {
          brand: cardBrandName(state.card.brand),
          last4: state.card.last4,
          exp_month: state.card.expMonth,
          exp_year: state.card.expYear,
        }
      : null,
    current_period_end: periodEnd,
    renews_at: ended || state.cancelAtPeriodEnd ? null : periodEnd,
    next_amount: ended || state.cancelAtPeriodEnd ? null : state.nextAmount,
    coupon: state.discount
      ? {
          id: state.discount.coupon,
          percent_off: state.discount.percentOff,
          amount_off: state.discount.amountOff,
          duration: state.discount.duration,
        }
      : null,
    cancel_at_period_end: state.cancelAtPeriodEnd && !ended,
    cancels_at: ended || state.cancelAtPeriodEnd ? periodEnd : null,
  }
}

/** A day in the audit trail, `2027-11-12`; the log writes it in words. */
const day = (at: Date) => at.toISOString().slice(0, 10)

/**
 * The practice's subscription in Settings, mounted under
 * `/api/practice/subscription`, Admin only (`subscription.manage`):
 * - `GET /`: the plans and term chosen at sign-up, the card on file, the next renewal and its
 *   amount after the coupon, and whether it is set to end; `status: 'none'` when the payment
 *   provider has no subscription for the practice (the plans then come from the sign-up's choice).
 * - `POST /cancel`: ends the subscription at the end of the term already paid, as the Terms say.
 * - `POST /resume`: undoes that while the term lasts; 409 once it ended.
 * - `PUT /card {token}`: makes a new card the one on file; a refused card answers 402 with the
 *   provider's message, as at sign-up.
 * Each change is an audit event the activity log reads in words; a repeat that changes nothing
 * (a double click) records nothing and answers the same.
 */
export function subscriptionRoutes(ctx: ServerContext) {
  const manage = requirePermission(ctx, 'subscription.manage')
  // Changes of one practice run one after another in this process, so a double click acts once.
  const running = new Map<number, Promise<unknown>>()
  function oneAtATime<T>(practiceId: number, work: () => Promise<T>): Promise<T> {
    const before = running.get(practiceId) ?? Promise.resolve()
    const next = before.catch(() => undefined).then(work)
    const tail = next.catch(() => undefined)
    running.set(practiceId, tail)
    void tail.then(() => {
      if (running.get(practiceId) === tail) running.delete(practiceId)
    })
    return next
  }

  // Card tokens already turned into a change here: a repeat (a double click) is not a new change.
  const changedWith = new Set<string>()

  /** The provider's ids of the practice, or 409 when it has no subscription there. */
  function refs(row: BillingRow) {
    if (!row.stripe_customer_id || !row.stripe_subscription_id) {
      throw conflict(SUBSCRIPTION_MESSAGES.none)
    }
    return { customerId: row.stripe_customer_id, subscriptionId: row.stripe_subscription_id }
  }

  /** Reads the subscription from the provider and mirrors an ended one on the practice row. */
  async function read(practiceId: number, row: BillingRow): Promise<SubscriptionState> {
    const state = await provider(() => ctx.payments.getSubscription(refs(row)))
    if (state.status === 'canceled' && row.subscription_status !== 'cancelled') {
      await markSubscriptionCancelled(ctx.db, practiceId)
    }
    return state
  }

  /** Without a subscription at the provider: the sign-up's choice, nothing to change. */
  async function noneAnswer(row: BillingRow): Promise<SubscriptionAnswer> {
    const term = row.subscription_months === 12 ? 'year' : 'month'
    const rows = await readAllPlans(ctx.db)
    const available: Plan[] = rows.map((plan) => ({
      ...plan,
      interval: plan.interval === 'year' ? 'year' : 'month',
    }))
    const ids = selectedPlanIds(available, term, row.subscription_ehr)
    return {
      plans: available
        .filter((plan) => ids.includes(plan.id))
        .map((plan) => ({ id: plan.id, name: plan.nickname, amount: planAmountCents(plan) })),
      term,
      status: 'none',
      card: null,
      current_period_end: null,
      renews_at: null,
      next_amount: null,
      coupon: null,
      cancel_at_period_end: false,
      cancels_at: null,
    }
  }

  /** Sets or clears the end at the term's end; audited only when it changed something. */
  async function setCancel(c: Context<AppEnv>, cancel: boolean) {
    const user = c.var.user
    return oneAtATime(user.practice_id, async () => {
      const row = await billingOf(ctx.db, user.practice_id)
      const ref = refs(row)
      const state = await read(user.practice_id, row)
      if (state.status === 'canceled') throw conflict(SUBSCRIPTION_MESSAGES.ended)
      if (state.cancelAtPeriodEnd === cancel) return toAnswer(state)
      await provider(() =>
        ctx.payments.setCancelAtPeriodEnd({
          subscriptionId: ref.subscriptionId,
          cancel,
          idempotencyKey: `${cancel ? 'cancel' : 'resume'}:${ref.subscriptionId}:${randomKey()}`,
        }),
      )
      await ctx.audit.record({
        action: cancel ? 'subscription.cancel_scheduled' : 'subscription.resumed',
        userId: user.id,
        practiceId: user.practice_id,
        ip: ctx.clientIp(c),
        details: cancel
          ? { ends_on: day(state.currentPeriodEnd) }
          : { renews_on: day(state.currentPeriodEnd) },
      })
      return toAnswer(await read(user.practice_id, row))
    })
  }

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'Read the subscription',
        description:
          "Admin. The plans and term chosen at sign-up, the card on file (brand, last four digits, expiry), the end of the term already paid, the next renewal and its amount in cents after the coupon (a coupon of duration `once` applied to the first term only), and whether it is set to end (`cancels_at`). `status: 'none'` when the payment service has no subscription for the practice.",
        tag: 'Settings',
        responses: {
          200: { description: 'The subscription.', json: SubscriptionAnswerSchema },
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      async (c) => {
        const row = await billingOf(ctx.db, c.var.user.practice_id)
        if (!row.stripe_customer_id || !row.stripe_subscription_id) {
          return c.json(await noneAnswer(row))
        }
        return c.json(toAnswer(await read(c.var.user.practice_id, row)))
      },
    )
    .post(
      '/cancel',
      operation({
        summary: 'End the subscription at the end of the term',
        description:
          'Admin. The subscription ends when the term already paid ends, as the Terms say; nothing is refunded and nothing more is charged. Audited; a repeat changes nothing and answers the same.',
        tag: 'Settings',
        responses: {
          200: {
            description: 'The subscription, with `cancels_at`.',
            json: SubscriptionAnswerSchema,
          },
          409: 'The practice has no subscription, or it has already ended.',
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      async (c) => c.json(await setCancel(c, true)),
    )
    .post(
      '/resume',
      operation({
        summary: 'Keep the subscription',
        description:
          'Admin. Undoes the end at the term end while the term lasts: the subscription renews again. Audited; a repeat changes nothing and answers the same.',
        tag: 'Settings',
        responses: {
          200: {
            description: 'The subscription, with `renews_at`.',
            json: SubscriptionAnswerSchema,
          },
          409: 'The practice has no subscription, or it has already ended.',
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      async (c) => c.json(await setCancel(c, false)),
    )
    .put(
      '/card',
      operation({
        summary: 'Change the card on file',
        description:
          'Admin. `token` is a one-time card token, made as at sign-up (Stripe.js, or `POST /payments/test-tokens` with the test gateway). The card is checked by the payment service and becomes the one the next renewals are charged to. Audited with the brand and last four digits.',
        tag: 'Settings',
        responses: {
          200: {
            description: 'The subscription with the new card.',
            json: SubscriptionAnswerSchema,
          },
          400: 'The token is not valid, or was used already.',
          402: "The card was refused: the provider's message.",
          409: 'The practice has no subscription.',
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      jsonBody(ChangeCardBodySchema),
      async (c) => {
        const user = c.var.user
        const { token } = c.req.valid('json')
        return c.json(
          await oneAtATime(user.practice_id, async () => {
            const row = await billingOf(ctx.db, user.practice_id)
            const ref = refs(row)
            // The token is single-use: its key makes a retry answer the first result, never a
            // second card change.
            const card = await provider(() =>
              ctx.payments.updateCard({
                customerId: ref.customerId,
                token,
                idempotencyKey: `card:${token}`,
              }),
            )
            if (changedWith.has(token)) return toAnswer(await read(user.practice_id, row))
            if (changedWith.size >= 1000) changedWith.clear()
            changedWith.add(token)
            await ctx.audit.record({
              action: 'subscription.card_changed',
              userId: user.id,
              practiceId: user.practice_id,
              ip: ctx.clientIp(c),
              details: { brand: cardBrandName(card.brand), last4: card.last4 },
            })
            return toAnswer(await read(user.practice_id, row))
          }),
        )
      },
    )
}

/** A fresh idempotency key part: each real change is a new request to the provider. */
function randomKey(): string {
  return crypto.randomUUID()
}
