/**
 * The seam through which a practice's patients pay the practice (memberships): the practice's own
 * connected account, its patients' customers with a saved card, off-session charges and refunds,
 * and the signed events (webhooks) the gateway sends about them
 * (docs/decisions/025-membership-billing.md). Two implementations: the built-in test gateway
 * (default; Stripe's test cards, its idempotency and its webhook signatures, never a network) and
 * Stripe Connect (when `STRIPE_SECRET_KEY` is set).
 */
import { createHash } from 'node:crypto'
import { and, asc, eq, gt, sql } from 'drizzle-orm'
import Stripe from 'stripe'
import type { Database } from '#server/db/client.ts'
import {
  testGatewayAccounts,
  testGatewayCharges,
  testGatewayMemberCustomers,
} from '#server/db/schema.ts'
import {
  PaymentError,
  type PaymentErrorCode,
  PROVIDER_UNAVAILABLE_MESSAGE,
  type ProviderCard,
} from './provider.ts'
import { randomId, type TestGateway } from './test-gateway.ts'

export type ChargeInput = {
  accountId: string
  customerId: string
  amountCents: number
  description: string
  /** Copied onto the charge and its events: `membership_id`, `charge_key`. */
  metadata: Record<string, string>
  /** The same key answers the first outcome and never charges twice (Stripe's rule). */
  idempotencyKey: string
}

/** A gateway event as Stripe sends it to a webhook (the fields we read). */
export type GatewayEvent = {
  id: string
  type: 'charge.succeeded' | 'charge.failed' | 'charge.refunded'
  created: number
  data: {
    object: {
      id: string
      amount: number
      metadata: Record<string, string>
      failure_code: string | null
      failure_message: string | null
    }
  }
}

export interface MemberPayments {
  readonly mode: 'test' | 'stripe'
  /** The secret webhook signatures are checked with (Stripe's `whsec_…`). */
  readonly webhookSecret: string
  /** Creates the practice's connected account (Stripe Connect, a Standard account). */
  connectAccount(input: { email: string; idempotencyKey: string }): Promise<{ accountId: string }>
  /** A customer of the connected account with the card of `token` saved; a refused card throws 402. */
  createCustomer(input: {
    accountId: string
    token: string
    name: string
    email: string | null
    idempotencyKey: string
  }): Promise<{ customerId: string; card: ProviderCard }>
  /** Replaces the customer's saved card; a refused card throws 402 and keeps the old one. */
  updateCard(input: {
    accountId: string
    customerId: string
    token: string
    idempotencyKey: string
  }): Promise<ProviderCard>
  /** Charges the saved card off-session; a decline throws a 402 {@link PaymentError}. */
  charge(input: ChargeInput): Promise<{ chargeId: string }>
  /** Refunds `amountCents` of a charge. */
  refund(input: {
    accountId: string
    chargeId: string
    amountCents: number
    idempotencyKey: string
  }): Promise<{ refundId: string }>
  /** Checks a webhook's `Stripe-Signature` and reads its event; throws when it does not verify. */
  verifyEvent(payload: string, signature: string): GatewayEvent
}

/** Decline codes of Stripe's test cards that attach to a customer but fail when charged. */
const FAIL_WHEN_CHARGED: Readonly<Record<string, { code: PaymentErrorCode; message: string }>> = {
  '4000000000000341': { code: 'card_declined', message: 'Your card was declined.' },
}

const DECLINES: Readonly<Record<string, string>> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
}

/** The test gateway's events are signed with this secret unless one is given. */
export const TEST_WEBHOOK_SECRET = 'whsec_test_glow_rewards'

const signer = new Stripe('sk_test_offline_signature_checks_only')

/** The `Stripe-Signature` header of `payload`, as Stripe signs webhooks (`t=…,v1=…`). */
export function signEvent(payload: string, secret: string, timestamp?: number): string {
  return signer.webhooks.generateTestHeaderString({
    payload,
    secret,
    ...(timestamp === undefined ? {} : { timestamp }),
  })
}

function verifyWith(payload: string, signature: string, secret: string): GatewayEvent {
  try {
    return signer.webhooks.constructEvent(payload, signature, secret) as unknown as GatewayEvent
  } catch {
    throw new PaymentError(400, 'invalid_request', 'The event signature does not verify.')
  }
}

/** The test gateway's view for tests and the development tools: its events, oldest first. */
export interface TestMemberPayments extends MemberPayments {
  readonly mode: 'test'
  /** Events after `afterId` (a charge id), oldest first, each as the webhook would carry it. */
  events(options?: { afterChargeId?: string; limit?: number }): Promise<GatewayEvent[]>
  /** Signs `event` as the webhook's `Stripe-Signature`. */
  sign(event: GatewayEvent): { payload: string; signature: string }
}

type ChargeRow = typeof testGatewayCharges.$inferSelect

function eventOf(row: ChargeRow): GatewayEvent {
  return {
    id: `evt_${row.id}`,
    type:
      row.kind === 'refund'
        ? 'charge.refunded'
        : row.status === 'succeeded'
          ? 'charge.succeeded'
          : 'charge.failed',
    created: Math.floor(row.created_at.getTime() / 1000),
    data: {
      object: {
        id: row.kind === 'refund' ? (row.refunded_charge_id ?? row.id) : row.id,
        amount: row.amount_cents,
        metadata: row.metadata,
        failure_code: row.failure_code,
        failure_message: row.failure_message,
      },
    },
  }
}

/**
 * The test gateway's connected accounts (server/payments/test-gateway.ts tokenises the cards): a
 * customer keeps the card's number class, so `4000 0000 0000 0341` attaches but every charge of it
 * is declined, and `4000 0000 0000 0002` is declined when attached. Charges are kept in the
 * database by idempotency key (a repeated key answers the first outcome, a decline included), and
 * each charge is an event the webhook receives.
 */
export function createTestMemberPayments({
  db,
  gateway,
  clock,
  webhookSecret = TEST_WEBHOOK_SECRET,
}: {
  db: Database
  gateway: Pick<TestGateway, 'takeCard'>
  /** The gateway's clock (Stripe's test clocks): the billing clock, so card expiries follow it. */
  clock: () => Promise<Date>
  webhookSecret?: string
}): TestMemberPayments {
  async function customerOf(accountId: string, customerId: string) {
    const [row] = await db
      .select()
      .from(testGatewayMemberCustomers)
      .where(
        and(
          eq(testGatewayMemberCustomers.id, customerId),
          eq(testGatewayMemberCustomers.account_id, accountId),
        ),
      )
    if (!row) throw new PaymentError(400, 'invalid_request', 'The payment customer is unknown.')
    return row
  }

  /** Stripe's rule for a reused key: the first outcome again, a decline thrown again. */
  function replay(row: Pick<ChargeRow, 'id' | 'status' | 'failure_code' | 'failure_message'>): {
    chargeId: string
  } {
    if (row.status === 'failed') {
      throw new PaymentError(
        402,
        (row.failure_code ?? 'card_declined') as PaymentErrorCode,
        row.failure_message ?? DECLINES.card_declined ?? 'Your card was declined.',
      )
    }
    return { chargeId: row.id }
  }

  /** The cards saved by `updateCard`, by account, customer and idempotency key. */
  const cardUpdates = new Map<string, ProviderCard>()

  async function byKey(accountId: string, key: string) {
    const [row] = await db
      .select()
      .from(testGatewayCharges)
      .where(
        and(
          eq(testGatewayCharges.account_id, accountId),
          eq(testGatewayCharges.idempotency_key, key),
        ),
      )
    return row
  }

  const cardOf = (row: typeof testGatewayMemberCustomers.$inferSelect): ProviderCard => ({
    brand: row.card_brand,
    last4: row.card_last4,
    expMonth: row.card_exp_month,
    expYear: row.card_exp_year,
  })

  return {
    mode: 'test',
    webhookSecret,

    async connectAccount({ idempotencyKey }) {
      const id = `acct_test_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 16)}`
      await db.insert(testGatewayAccounts).values({ id }).onConflictDoNothing()
      return { accountId: id }
    },

    async createCustomer({ accountId, token, idempotencyKey }) {
      const id = `cus_test_${createHash('sha256').update(`${accountId}:${idempotencyKey}`).digest('hex').slice(0, 24)}`
      const [earlier] = await db
        .select()
        .from(testGatewayMemberCustomers)
        .where(eq(testGatewayMemberCustomers.id, id))
      if (earlier) return { customerId: id, card: cardOf(earlier) }
      const { number, card } = gateway.takeCard(token)
      await db
        .insert(testGatewayMemberCustomers)
        .values({
          id,
          account_id: accountId,
          card_brand: card.brand,
          card_last4: card.last4,
          card_exp_month: card.expMonth,
          card_exp_year: card.expYear,
          charge_outcome: FAIL_WHEN_CHARGED[number]?.code ?? 'ok',
        })
        .onConflictDoNothing()
      return { customerId: id, card }
    },

    async updateCard({ accountId, customerId, token, idempotencyKey }) {
      await customerOf(accountId, customerId)
      // As Stripe answers a request sent again with its idempotency key: the first answer, and
      // the one-time token is not spent twice (a patient's double tap, a retry after a lost answer).
      const replayKey = `${accountId}:${customerId}:${idempotencyKey}`
      const replayed = cardUpdates.get(replayKey)
      if (replayed) return { ...replayed }
      const { number, card } = gateway.takeCard(token)
      cardUpdates.set(replayKey, { ...card })
      await db
        .update(testGatewayMemberCustomers)
        .set({
          card_brand: card.brand,
          card_last4: card.last4,
          card_exp_month: card.expMonth,
          card_exp_year: card.expYear,
          charge_outcome: FAIL_WHEN_CHARGED[number]?.code ?? 'ok',
        })
        .where(eq(testGatewayMemberCustomers.id, customerId))
      return card
    },

    async charge(input) {
      const at = await clock()
      // One statement, as Stripe answers one call: the charge is written with its outcome (the
      // card's test-number class, or its expiry at the gateway's clock) unless the key was used.
      const month = at.getUTCFullYear() * 12 + at.getUTCMonth() + 1
      const failure = sql`case when c.charge_outcome <> 'ok' then c.charge_outcome
        when c.card_exp_year * 12 + c.card_exp_month < ${month} then 'expired_card' end`
      const result = await db.execute(sql`
        insert into test_gateway_charges (id, idempotency_key, account_id, customer_id, kind,
          amount_cents, status, failure_code, failure_message, metadata, created_at)
        select ${randomId('ch_test_').slice(0, 40)}, ${input.idempotencyKey}, ${input.accountId}, c.id,
          'charge', ${input.amountCents},
          case when (${failure}) is null then 'succeeded' else 'failed' end,
          ${failure},
          case when (${failure}) is null then null
            when (${failure}) = 'expired_card' then 'Your card has expired.'
            when (${failure}) = 'insufficient_funds' then ${DECLINES.insufficient_funds}
            else ${DECLINES.card_declined} end,
          ${JSON.stringify(input.metadata)}::jsonb, ${at.toISOString()}::timestamptz
        from test_gateway_member_customers c
        where c.id = ${input.customerId} and c.account_id = ${input.accountId}
        on conflict (account_id, idempotency_key) do nothing
        returning id, status, failure_code, failure_message`)
      const [row] = (
        result as unknown as {
          rows: Pick<ChargeRow, 'id' | 'status' | 'failure_code' | 'failure_message'>[]
        }
      ).rows
      if (row) return replay(row)
      // The key was used before (or by a call at the same time): its first outcome, as Stripe.
      const earlier = await byKey(input.accountId, input.idempotencyKey)
      if (earlier) return replay(earlier)
      throw new PaymentError(400, 'invalid_request', 'The payment customer is unknown.')
    },

    async refund({ accountId, chargeId, amountCents, idempotencyKey }) {
      const earlier = await byKey(accountId, idempotencyKey)
      if (earlier) return { refundId: earlier.id }
      const [charge] = await db
        .select()
        .from(testGatewayCharges)
        .where(
          and(eq(testGatewayCharges.id, chargeId), eq(testGatewayCharges.account_id, accountId)),
        )
      if (charge?.status !== 'succeeded' || charge.kind !== 'charge') {
        throw new PaymentError(400, 'invalid_request', 'The charge to refund is unknown.')
      }
      const [row] = await db
        .insert(testGatewayCharges)
        .values({
          id: randomId('re_test_').slice(0, 40),
          idempotency_key: idempotencyKey,
          account_id: accountId,
          customer_id: charge.customer_id,
          kind: 'refund',
          amount_cents: amountCents,
          status: 'succeeded',
          refunded_charge_id: chargeId,
          metadata: charge.metadata,
          created_at: await clock(),
        })
        .onConflictDoNothing()
        .returning()
      return { refundId: (row ?? (await byKey(accountId, idempotencyKey)))?.id ?? '' }
    },

    verifyEvent: (payload, signature) => verifyWith(payload, signature, webhookSecret),

    async events({ afterChargeId, limit = 1000 } = {}) {
      const rows = await db
        .select()
        .from(testGatewayCharges)
        .where(afterChargeId ? gt(testGatewayCharges.id, afterChargeId) : undefined)
        .orderBy(asc(testGatewayCharges.created_at), asc(testGatewayCharges.id))
        .limit(limit)
      return rows.map(eventOf)
    },

    sign(event) {
      const payload = JSON.stringify(event)
      return { payload, signature: signEvent(payload, webhookSecret) }
    },
  }
}

function stripeError(error: unknown): PaymentError {
  if (error instanceof Stripe.errors.StripeCardError) {
    const code = (
      error.decline_code === 'insufficient_funds' ? 'insufficient_funds' : 'card_declined'
    ) as PaymentErrorCode
    return new PaymentError(402, code, error.message)
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    return new PaymentError(400, 'invalid_request', error.message)
  }
  return new PaymentError(502, 'provider_unavailable', PROVIDER_UNAVAILABLE_MESSAGE)
}

/**
 * Stripe Connect: the practice's Standard connected account; customers, cards and charges are
 * made on it (`Stripe-Account` header), so the money is the practice's. Every call carries the
 * caller's idempotency key.
 */
export function createStripeMemberPayments({
  secretKey,
  webhookSecret,
}: {
  secretKey: string
  webhookSecret: string
}): MemberPayments {
  // Made at the first call: a server without a key starts, and answers the call with a sentence.
  let client: Stripe | undefined
  const call = async <T>(run: (stripe: Stripe) => Promise<T>): Promise<T> => {
    if (!secretKey) {
      throw new PaymentError(502, 'provider_unavailable', PROVIDER_UNAVAILABLE_MESSAGE)
    }
    client ??= new Stripe(secretKey, { maxNetworkRetries: 2, timeout: 20_000 })
    try {
      return await run(client)
    } catch (error) {
      throw stripeError(error)
    }
  }
  const cardOf = (card: Stripe.Card): ProviderCard => ({
    brand: card.brand,
    last4: card.last4,
    expMonth: card.exp_month,
    expYear: card.exp_year,
  })
  return {
    mode: 'stripe',
    webhookSecret,
    connectAccount: ({ email, idempotencyKey }) =>
      call(async (stripe) => {
        const account = await stripe.accounts.create(
          { type: 'standard', email },
          { idempotencyKey },
        )
        return { accountId: account.id }
      }),
    createCustomer: ({ accountId, token, name, email, idempotencyKey }) =>
      call(async (stripe) => {
        const customer = await stripe.customers.create(
          { source: token, name, ...(email ? { email } : {}), expand: ['default_source'] },
          { stripeAccount: accountId, idempotencyKey },
        )
        return { customerId: customer.id, card: cardOf(customer.default_source as Stripe.Card) }
      }),
    updateCard: ({ accountId, customerId, token, idempotencyKey }) =>
      call(async (stripe) => {
        const customer = await stripe.customers.update(
          customerId,
          { source: token, expand: ['default_source'] },
          { stripeAccount: accountId, idempotencyKey },
        )
        return cardOf(customer.default_source as Stripe.Card)
      }),
    charge: (input) =>
      call(async (stripe) => {
        const charge = await stripe.charges.create(
          {
            amount: input.amountCents,
            currency: 'usd',
            customer: input.customerId,
            description: input.description,
            metadata: input.metadata,
          },
          { stripeAccount: input.accountId, idempotencyKey: input.idempotencyKey },
        )
        return { chargeId: charge.id }
      }),
    refund: ({ accountId, chargeId, amountCents, idempotencyKey }) =>
      call(async (stripe) => {
        const refund = await stripe.refunds.create(
          { charge: chargeId, amount: amountCents },
          { stripeAccount: accountId, idempotencyKey },
        )
        return { refundId: refund.id }
      }),
    verifyEvent: (payload, signature) => verifyWith(payload, signature, webhookSecret),
  }
}
