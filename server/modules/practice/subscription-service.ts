import type { Plan } from '#domain/plans.ts'
import { planAmountCents, selectedPlanIds } from '#domain/pricing.ts'
import {
  cardBrandName,
  SUBSCRIPTION_MESSAGES,
  type SubscriptionAnswer,
} from '#domain/subscription.ts'
import { type AuditAction, type AuditDetail, recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import { conflict } from '#server/lib/domain-error.ts'
import type { SubscriptionState } from '#server/payments/index.ts'
import { providerCall } from '#server/payments/refusal.ts'
import { type BillingRow, billingOf, markSubscriptionCancelled, readAllPlans } from './queries.ts'

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

/** The provider's ids of the practice; a conflict when it has no subscription there. */
function refs(row: BillingRow) {
  if (!row.stripe_customer_id || !row.stripe_subscription_id) {
    throw conflict(SUBSCRIPTION_MESSAGES.none)
  }
  return { customerId: row.stripe_customer_id, subscriptionId: row.stripe_subscription_id }
}

/** A fresh idempotency key part: each real change is a new request to the provider. */
function randomKey(): string {
  return crypto.randomUUID()
}

/**
 * The practice's subscription at the payment provider: read it, set it to end at the term's end
 * or keep it, and change the card. Changes of one practice run one after another in this
 * process, so a double click acts once; a repeat that changes nothing records nothing.
 */
export function subscriptionService(ctx: Pick<ServerContext, 'db' | 'now' | 'payments'>) {
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

  /** Reads the subscription from the provider and mirrors an ended one on the practice row. */
  async function read(practiceId: number, row: BillingRow): Promise<SubscriptionState> {
    const state = await providerCall(() => ctx.payments.getSubscription(refs(row)))
    if (state.status === 'canceled' && row.subscription_status !== 'cancelled') {
      await markSubscriptionCancelled(ctx.db, practiceId)
    }
    return state
  }

  /** Without a subscription at the provider: the sign-up's choice, nothing to change. */
  async function noneAnswer(row: BillingRow): Promise<SubscriptionAnswer> {
    const term = row.subscription_months === 12 ? 'year' : 'month'
    const available: Plan[] = await readAllPlans(ctx.db)
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

  /**
   * Records a change made at the provider. There is no transaction of ours to write it in: it
   * is written on its own, and a failure to write it fails the request.
   */
  const record = (actor: Actor, action: AuditAction, details: Record<string, AuditDetail>) =>
    recordWithin(ctx.db, actorEvent(actor, action, details), ctx.now())

  return {
    /** The subscription, or the sign-up's choice with `status: 'none'` when there is none. */
    async read(practiceId: number): Promise<SubscriptionAnswer> {
      const row = await billingOf(ctx.db, practiceId)
      if (!row.stripe_customer_id || !row.stripe_subscription_id) return noneAnswer(row)
      return toAnswer(await read(practiceId, row))
    },

    /** Sets (`cancel`) or clears the end at the term's end; a conflict once it has ended. */
    setCancel(actor: Actor, cancel: boolean): Promise<SubscriptionAnswer> {
      const practiceId = actor.user.practice_id
      return oneAtATime(practiceId, async () => {
        const row = await billingOf(ctx.db, practiceId)
        const ref = refs(row)
        const state = await read(practiceId, row)
        if (state.status === 'canceled') throw conflict(SUBSCRIPTION_MESSAGES.ended)
        if (state.cancelAtPeriodEnd === cancel) return toAnswer(state)
        await providerCall(() =>
          ctx.payments.setCancelAtPeriodEnd({
            subscriptionId: ref.subscriptionId,
            cancel,
            idempotencyKey: `${cancel ? 'cancel' : 'resume'}:${ref.subscriptionId}:${randomKey()}`,
          }),
        )
        const periodEnd = day(state.currentPeriodEnd)
        await record(
          actor,
          cancel ? 'subscription.cancel_scheduled' : 'subscription.resumed',
          cancel ? { ends_on: periodEnd } : { renews_on: periodEnd },
        )
        return toAnswer(await read(practiceId, row))
      })
    },

    /** Makes the card of the one-time `token` the one on file; a repeated token changes nothing. */
    changeCard(actor: Actor, token: string): Promise<SubscriptionAnswer> {
      const practiceId = actor.user.practice_id
      return oneAtATime(practiceId, async () => {
        const row = await billingOf(ctx.db, practiceId)
        const ref = refs(row)
        // The token is single-use: its key makes a retry answer the first result, never a
        // second card change.
        const card = await providerCall(() =>
          ctx.payments.updateCard({
            customerId: ref.customerId,
            token,
            idempotencyKey: `card:${token}`,
          }),
        )
        if (changedWith.has(token)) return toAnswer(await read(practiceId, row))
        if (changedWith.size >= 1000) changedWith.clear()
        changedWith.add(token)
        const details = { brand: cardBrandName(card.brand), last4: card.last4 }
        await record(actor, 'subscription.card_changed', details)
        return toAnswer(await read(practiceId, row))
      })
    },
  }
}
