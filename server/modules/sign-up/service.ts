import { eq, sql } from 'drizzle-orm'
import { selectedPlanIds } from '#domain/pricing.ts'
import type { PayPayload, SignUpPayload } from '#domain/sign-up/api.ts'
import { SIGN_UP_MESSAGES } from '#domain/sign-up/messages.ts'
import { recordWithin, userEvent } from '#server/audit/audit.ts'
import { SESSION_USER_COLUMNS } from '#server/auth/session-answer.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { sealJson } from '#server/db/data-key.ts'
import { payments, practices, users } from '#server/db/schema.ts'
import { conflict, DomainError, invalid } from '#server/lib/domain-error.ts'
import { maskEmail } from '#server/lib/log.ts'
import { templateMail } from '#server/messaging/outbound.ts'
import {
  consumeVerification,
  phoneDigits,
  VerificationError,
} from '#server/messaging/verification.ts'
import { connectNewPractice } from '#server/modules/nextech/index.ts'
import { activePlans, couponByCode } from '#server/modules/practice/index.ts'
import type { CustomerBilling } from '#server/payments/index.ts'
import { providerCall } from '#server/payments/refusal.ts'
import { hashPassword, verifyPassword } from '#server/security/passwords.ts'
import {
  type AccountRow,
  accountOf,
  customerOfPractice,
  hasPaid,
  paymentOfToken,
} from './queries.ts'
import { createTakenContacts } from './taken-contacts.ts'
import { welcomeEmail } from './welcome-email.ts'

/** The answers of `POST /auth/local/register` beyond the field rules. */
export const REGISTER_MESSAGES = {
  emailTaken: 'Email is already taken.',
  paymentRequired: 'Please complete the payment before signing up.',
  paymentUsed: 'This payment was already used to sign up another practice.',
  plansUnavailable: 'The chosen plan is not available. Please choose your plan again.',
  invalidPromo: SIGN_UP_MESSAGES.invalidPromo,
} as const

/** The refusal of a card token already paid with for another e-mail. */
const OTHER_EMAIL_PAYMENT = 'This card payment was made for another e-mail.'

const STRIPE_TOKEN = /^tok_\w{1,200}$/

/** A fixed Stripe-style customer id, as `POST /auth/pay` answers it. */
const CUSTOMER_ID = /^cus_\w{1,200}$/

/** The billing details of `POST /auth/pay` in the provider's terms. */
function customerBilling(billing: PayPayload['billingInformation']): CustomerBilling {
  return {
    name: billing.name.trim(),
    line1: billing.billing_address_1.trim(),
    line2: billing.billing_address_2.trim() || null,
    city: billing.billing_city.trim(),
    state: billing.billing_state.trim(),
    postalCode: billing.billing_zip.trim(),
    country: billing.country,
  }
}

/** The SQLSTATE and constraint of a Postgres error, also when drizzle wraps it in `cause`. */
function postgresError(error: unknown): { code?: string; constraint?: string } {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const { code, constraint } = current as { code?: unknown; constraint?: unknown }
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      return { code, constraint: typeof constraint === 'string' ? constraint : undefined }
    }
    current = (current as { cause?: unknown }).cause
  }
  return {}
}

type SignUpContext = Pick<
  ServerContext,
  'db' | 'now' | 'hashing' | 'outbound' | 'payments' | 'config' | 'log' | 'nextech'
>

/**
 * The sign-up's use cases: whether an e-mail or phone is taken, the payment, and the
 * registration of a practice and its Admin, each change audited in its transaction.
 */
export function signUpService(ctx: SignUpContext) {
  const { db } = ctx
  const takenContacts = createTakenContacts(db, { now: () => ctx.now().getTime() })
  // Two concurrent calls for one token in this process share one provider call.
  const paymentsInFlight = new Map<string, { email: string; customerId: Promise<string> }>()

  async function payOnce(body: PayPayload, email: string, ip: string): Promise<string> {
    const earlier = await paymentOfToken(db, body.token)
    if (earlier) {
      if (earlier.email !== email) throw conflict(OTHER_EMAIL_PAYMENT)
      return earlier.customer_id
    }
    // The idempotency key makes the provider answer the first result to any repeat, also
    // from another server instance, so a token is charged once.
    const { customerId } = await providerCall(() =>
      ctx.payments.createCustomer({
        token: body.token,
        email,
        billingInformation: customerBilling(body.billingInformation),
        idempotencyKey: `pay:${body.token}`,
      }),
    )
    const stored = await db.transaction(async (tx) => {
      const at = ctx.now()
      const [row] = await tx
        .insert(payments)
        .values({ token: body.token, email, customer_id: customerId, created_at: at })
        .onConflictDoNothing({ target: payments.token })
        .returning({ customer_id: payments.customer_id })
      if (row) {
        // Recorded once per charged card token: never the token or any card data.
        const event = {
          action: 'payment.completed',
          ip,
          details: { customer_id: row.customer_id, email: maskEmail(email) },
        } as const
        await recordWithin(tx, event, at)
      }
      return row
    })
    if (stored) return stored.customer_id
    // Another instance stored this token first; its row is the one answer.
    const winner = await paymentOfToken(db, body.token)
    if (!winner) throw new Error('payment row vanished after a token conflict')
    return winner.customer_id
  }

  /** The plans the payload may subscribe to, derived on the server from the term and EHR. */
  async function subscriptionPlans(body: SignUpPayload): Promise<string[]> {
    const available = await activePlans(db)
    const choice = body.billingInformation
    const term = choice.subscription_months === 12 ? 'year' : 'month'
    const expected = selectedPlanIds(available, term, choice.subscription_ehr)
    const sent = [...choice.plan].sort()
    // The Lite plan is always part of it, and the client's ids must be exactly the server's.
    const lite = expected[0]
    const matches =
      lite !== undefined &&
      expected.length === (choice.subscription_ehr ? 2 : 1) &&
      sent.length === expected.length &&
      [...expected].sort().every((id, i) => id === sent[i])
    if (!matches) throw invalid(REGISTER_MESSAGES.plansUnavailable)
    return expected
  }

  async function couponOf(body: SignUpPayload): Promise<string | null> {
    const code = (body.coupon ?? body.billingInformation.promo_code ?? '').trim()
    if (code === '') return null
    // The same in any case, as the coupon lookup finds it.
    const row = await couponByCode(db, code)
    if (!row) throw invalid(REGISTER_MESSAGES.invalidPromo)
    return row.id
  }

  /** Subscribes the practice; a failure leaves the account and marks it for billing follow-up. */
  async function subscribe(
    practiceId: number,
    customerId: string,
    planIds: string[],
    coupon: string | null,
  ) {
    try {
      const { subscriptionId } = await ctx.payments.createSubscription({
        customerId,
        planIds,
        coupon,
        idempotencyKey: `subscribe:${customerId}`,
      })
      // Kept for Settings: the subscription is read, changed and cancelled by this id.
      await db
        .update(practices)
        .set({ stripe_subscription_id: subscriptionId })
        .where(eq(practices.id, practiceId))
    } catch (error) {
      // The card was accepted by /auth/pay and the account exists; the subscription can be
      // retried from billing, so the sign-up itself succeeds.
      ctx.log.warn(
        `Subscription for practice ${practiceId} failed: ${error instanceof Error ? error.message : 'unknown error'}`,
      )
      await db
        .update(practices)
        .set({ subscription_status: 'past_due' })
        .where(eq(practices.id, practiceId))
    }
  }

  /** Queues the welcome e-mail in the transaction that creates the account. */
  async function queueWelcome(
    tx: Transaction,
    to: string,
    firstName: string,
    practiceName: string,
  ) {
    const link = new URL('/signin', ctx.config.publicUrl).toString()
    await ctx.outbound.enqueue(
      tx,
      templateMail(welcomeEmail, to, { firstName, practiceName, link }),
    )
  }

  /** The user of an earlier sign-up with the same payload; a conflict when the e-mail is someone else's. */
  async function repeatedSignUp(existing: AccountRow, body: SignUpPayload): Promise<number> {
    const same =
      existing.access_rights === 'Admin' &&
      (await customerOfPractice(db, existing.practice_id)) === body.stripe_id &&
      (await ctx.hashing.run(() => verifyPassword(existing.password_hash, body.password)))
    if (!same) throw conflict(REGISTER_MESSAGES.emailTaken)
    return existing.id
  }

  async function createAccount(
    tx: Transaction,
    body: SignUpPayload,
    input: { email: string; passwordHash: string; planIds: string[]; coupon: string | null },
    ip: string,
  ) {
    const at = ctx.now()
    // One registration per payment at a time, so a payment can never open two practices.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`register:${body.stripe_id}`}))`)
    const [used] = await tx
      .select({ id: practices.id })
      .from(practices)
      .where(eq(practices.stripe_customer_id, body.stripe_id))
      .limit(1)
    if (used) throw conflict(REGISTER_MESSAGES.paymentUsed)
    try {
      await consumeVerification(tx, { authyId: body.authyId, phone: body.cell_phone }, at)
    } catch (error) {
      if (error instanceof VerificationError) throw invalid(error.message)
      throw error
    }
    const p = body.practice
    const [practice] = await tx
      .insert(practices)
      .values({
        practice_name: p.practice_name.trim(),
        office_name: p.office_name?.trim() || null,
        url: p.url.trim(),
        practice_phone: phoneDigits(p.practice_phone),
        practice_email: p.practice_email.trim().toLowerCase(),
        practice_address: p.practice_address.trim(),
        practice_address_2: p.practice_address_2.trim() || null,
        city: p.city.trim(),
        practice_zip: p.practice_zip.trim().toUpperCase(),
        state: p.state.trim(),
        country: p.country,
        e_record: p.e_record,
        // The EHR credentials are sealed at rest and never answered.
        nextech: p.nextech ? sealJson(p.nextech, ctx.config.dataKey) : null,
        stripe_customer_id: body.stripe_id,
        plan_id: input.planIds[0] ?? null,
        coupon_id: input.coupon,
        subscription_basic: true,
        subscription_ehr: body.billingInformation.subscription_ehr,
        subscription_months: body.billingInformation.subscription_months,
        subscription_status: 'active',
        billing_address_1: body.billing_address.trim(),
        billing_address_2: body.billing_address_2.trim() || null,
        billing_city: body.billing_city.trim(),
        billing_state: body.billing_state.trim(),
        billing_zip: body.billing_zip.trim(),
        created_at: at,
      })
      .returning({ id: practices.id })
    if (!practice) throw new Error('practice row was not created')
    const [user] = await tx
      .insert(users)
      .values({
        practice_id: practice.id,
        email: input.email,
        username: body.username.trim() || input.email,
        password_hash: input.passwordHash,
        title: body.title.trim() || null,
        first_name: body.first_name.trim(),
        last_name: body.last_name.trim(),
        cell_phone: phoneDigits(body.cell_phone),
        country_code: body.country_code,
        position: body.position,
        // The first user of a new practice is its Admin, whatever the client sent (spec 6).
        access_rights: 'Admin',
        created_at: at,
      })
      .returning(SESSION_USER_COLUMNS)
    if (!user) throw new Error('user row was not created')
    await queueWelcome(tx, input.email, user.first_name, p.practice_name.trim())
    const event = userEvent('signup.registered', user, ip, { customer_id: body.stripe_id })
    await recordWithin(tx, event, at)
    return user
  }

  return {
    /** Which of `email` and `phone` already belongs to a user, or null when both are free. */
    async takenContact(email: string, phone: string): Promise<'email' | 'phone' | null> {
      // A snapshot of every user's e-mail and phone, not a query per check.
      const taken = await takenContacts.get()
      if (taken.emails.has(email.trim().toLowerCase())) return 'email'
      if (taken.phones.has(phoneDigits(phone))) return 'phone'
      return null
    },

    /**
     * Creates the paying customer from a one-time card token; answers its id. Idempotent per
     * token: a repeat answers the same id and never charges again.
     */
    async pay(body: PayPayload, ip: string): Promise<string> {
      if (!STRIPE_TOKEN.test(body.token)) throw invalid('The card token is malformed.')
      const email = body.email.trim().toLowerCase()
      let pending = paymentsInFlight.get(body.token)
      if (pending && pending.email !== email) throw conflict(OTHER_EMAIL_PAYMENT)
      if (!pending) {
        pending = {
          email,
          customerId: payOnce(body, email, ip).finally(() => paymentsInFlight.delete(body.token)),
        }
        paymentsInFlight.set(body.token, pending)
      }
      return pending.customerId
    },

    /**
     * Signs a practice up: the practice, its Admin, the consumed verification, the welcome
     * e-mail and the audit event in one transaction, then the subscription. Answers the Admin's
     * id; the same payload again answers the same user.
     */
    async register(body: SignUpPayload, ip: string): Promise<number> {
      const email = body.email.trim().toLowerCase()
      const existing = await accountOf(db, email)
      if (existing) return repeatedSignUp(existing, body)
      const paid =
        CUSTOMER_ID.test(body.stripe_id) &&
        (await hasPaid(db, body.stripe_id, body.practice.practice_email.trim().toLowerCase()))
      if (!paid) throw new DomainError('payment-declined', REGISTER_MESSAGES.paymentRequired)
      const planIds = await subscriptionPlans(body)
      const coupon = await couponOf(body)
      const passwordHash = await ctx.hashing.run(() => hashPassword(body.password))

      let user: { id: number; practice_id: number }
      try {
        user = await db.transaction((tx) =>
          createAccount(tx, body, { email, passwordHash, planIds, coupon }, ip),
        )
      } catch (error) {
        // Two sign-ups at once (a double click, a retry racing the first try): the payment lock
        // or the e-mail's unique index decides; the same payload then gets the winner's answer.
        const { code, constraint } = postgresError(error)
        const emailRace = code === '23505' && constraint === 'users_email_unique'
        const paymentRace = error instanceof DomainError && error.kind === 'conflict'
        if (!emailRace && !paymentRace) throw error
        const winner = await accountOf(db, email)
        if (winner) return repeatedSignUp(winner, body)
        throw emailRace ? conflict(REGISTER_MESSAGES.emailTaken) : error
      }
      takenContacts.invalidate()
      ctx.outbound.kick()
      await subscribe(user.practice_id, body.stripe_id, planIds, coupon)
      // The Nextech fields connect the new practice, in the background.
      if (body.practice.e_record === 'nextech') {
        void connectNewPractice(ctx, { user: { ...user, access_rights: 'Admin' }, ip })
      }
      return user.id
    },
  }
}
