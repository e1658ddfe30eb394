/**
 * Membership billing (docs/decisions/025-membership-billing.md): our own schedule charging the
 * saved card off-session through the {@link MemberPayments} seam.
 *
 * Exactly one successful charge per membership and cycle:
 * - an attempt is written `pending`, with the idempotency key the gateway gets, in a transaction
 *   that holds the membership's row lock, before the gateway is called; only one attempt per
 *   membership, cycle and purpose may be pending (unique index), and a pending one is sent again
 *   with its own key (a lost answer, a crash, another process): the gateway answers the first
 *   outcome and charges nothing more;
 * - the outcome is settled under the row lock again, once (a pending row only), whoever brings it:
 *   the caller, another process, or the gateway's webhook (applied once by event id);
 * - the cycle's perks are issued in the transaction that settles its charge, keyed by
 *   (membership, cycle) in `membership_cycles`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm'
import {
  CARD_EXPIRY_NOTICE_DAYS,
  cycleEnd,
  LIVE_STATUSES,
  type MembershipStatus,
  money,
  type PlanInterval,
  RETRY_SCHEDULE_DAYS,
} from '#domain/memberships.ts'
import { DAY_MS } from '#domain/time.ts'
import { type MembershipEvent, nextStatus } from '#machines/membership/membership.machine.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import {
  billingClock,
  membershipAllowances,
  membershipBankEntries,
  membershipCharges,
  membershipCycles,
  membershipEvents,
  membershipPlans,
  membershipPlanVersions,
  memberships,
  patients,
  paymentAccounts,
  paymentWebhookEvents,
  practices,
} from '#server/db/schema.ts'
import { conflict } from '#server/lib/domain-error.ts'
import type { Logger } from '#server/lib/log.ts'
import type { OutboundQueue } from '#server/messaging/outbound.ts'
import type { MemberPayments } from '#server/payments/member-gateway.ts'
import { PaymentError } from '#server/payments/provider.ts'

export type MembershipRow = typeof memberships.$inferSelect
export type VersionRow = typeof membershipPlanVersions.$inferSelect
export type ChargeRow = typeof membershipCharges.$inferSelect
type Executor = Database | Transaction

export type BillingDeps = {
  db: Database
  payments: MemberPayments
  outbound: Pick<OutboundQueue, 'enqueue' | 'kick'>
  publicUrl: string
  now: () => Date
  log: Logger
}

/** The billing clock: the wall clock plus the offset `POST /dev/clock` moved it by. */
export function createBillingClock(db: Database, now: () => Date) {
  return {
    async now(): Promise<Date> {
      const [row] = await db.select().from(billingClock).where(eq(billingClock.id, 1))
      return new Date(now().getTime() + (row?.offset_ms ?? 0))
    },
    async advance(days: number): Promise<void> {
      const ms = Math.round(days * DAY_MS)
      await db
        .insert(billingClock)
        .values({ id: 1, offset_ms: ms })
        .onConflictDoUpdate({
          target: billingClock.id,
          set: { offset_ms: sql`${billingClock.offset_ms} + ${ms}` },
        })
    },
  }
}
export type BillingClock = ReturnType<typeof createBillingClock>

/** The chart's next status for `event`, or the refusal of a change it does not take there. */
export function moveStatus(
  status: string,
  event: MembershipEvent['type'],
  change: string,
): MembershipStatus {
  const next = nextStatus(status as MembershipStatus, event)
  if (!next) {
    throw conflict(`A membership that is ${status.replace('_', ' ')} cannot ${change}.`)
  }
  return next
}

export async function writeEvent(
  ex: Executor,
  m: Pick<MembershipRow, 'id' | 'practice_id'>,
  kind: string,
  detail: string,
  at: Date,
  extra: { amount?: number | null; userId?: number | null } = {},
): Promise<void> {
  await ex.insert(membershipEvents).values({
    practice_id: m.practice_id,
    membership_id: m.id,
    kind,
    detail,
    amount_cents: extra.amount ?? null,
    user_id: extra.userId ?? null,
    at,
  })
}

export async function lockMembership(
  tx: Transaction,
  id: number,
  options: { skipLocked?: boolean } = {},
): Promise<MembershipRow | undefined> {
  const query = tx.select().from(memberships).where(eq(memberships.id, id))
  const [row] = await (options.skipLocked
    ? query.for('update', { skipLocked: true })
    : query.for('update'))
  return row
}

export async function versionOf(ex: Executor, id: number): Promise<VersionRow> {
  const [row] = await ex
    .select()
    .from(membershipPlanVersions)
    .where(eq(membershipPlanVersions.id, id))
  if (!row) throw new Error(`Plan version ${id} is missing.`)
  return row
}

export async function accountOf(ex: Executor, practiceId: number): Promise<string | null> {
  const [row] = await ex
    .select({ account_id: paymentAccounts.account_id })
    .from(paymentAccounts)
    .where(eq(paymentAccounts.practice_id, practiceId))
  return row?.account_id ?? null
}

/**
 * Issues the perks of a paid `cycle` once: the (membership, cycle) row is the guarantee. Credits
 * the bank, refills the allowances (rolling over up to each cap). Answers false when the cycle
 * already had its perks.
 */
export async function issuePerks(
  tx: Transaction,
  m: MembershipRow,
  version: VersionRow,
  cycle: number,
  period: { start: Date; end: Date },
  chargeId: number | null,
  at: Date,
): Promise<{ issued: boolean; bank: number }> {
  const [paid] = await tx
    .insert(membershipCycles)
    .values({
      membership_id: m.id,
      cycle,
      practice_id: m.practice_id,
      plan_version_id: version.id,
      charge_id: chargeId,
      period_start: period.start,
      period_end: period.end,
      bank_cents: version.perks.bank_cents,
      created_at: at,
    })
    .onConflictDoNothing()
    .returning({ cycle: membershipCycles.cycle })
  if (!paid) return { issued: false, bank: m.bank_cents }
  let bank = m.bank_cents
  if (version.perks.bank_cents > 0) {
    bank += version.perks.bank_cents
    await tx.insert(membershipBankEntries).values({
      practice_id: m.practice_id,
      membership_id: m.id,
      kind: 'credit',
      cycle,
      amount_cents: version.perks.bank_cents,
      balance_after: bank,
      created_at: at,
    })
  }
  await refillAllowances(tx, m, version, cycle === 1)
  await writeEvent(tx, m, 'perks_issued', perksText(version, cycle), at, {
    amount: version.perks.bank_cents || null,
  })
  return { issued: true, bank }
}

/** The timeline's sentence of a cycle's perks. */
function perksText(version: VersionRow, cycle: number): string {
  const units = version.perks.allowances.reduce((sum, a) => sum + a.quantity, 0)
  const parts = [
    version.perks.bank_cents > 0 ? `${money(version.perks.bank_cents)} banked` : null,
    units > 0 ? `${units} included treatment${units === 1 ? '' : 's'}` : null,
  ].filter(Boolean)
  return `Cycle ${cycle}'s perks${parts.length ? `: ${parts.join(', ')}` : ''}.`
}

async function refillAllowances(
  tx: Transaction,
  m: MembershipRow,
  version: VersionRow,
  fresh: boolean,
): Promise<void> {
  const items = version.perks.allowances.map((a) => a.catalogue_item_id)
  // Allowances of items the version no longer includes are gone.
  await tx.delete(membershipAllowances).where(
    and(
      eq(membershipAllowances.membership_id, m.id),
      items.length
        ? sql`${membershipAllowances.catalogue_item_id} not in (${sql.join(
            items.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : undefined,
    ),
  )
  for (const allowance of version.perks.allowances) {
    await tx
      .insert(membershipAllowances)
      .values({
        membership_id: m.id,
        catalogue_item_id: allowance.catalogue_item_id,
        practice_id: m.practice_id,
        remaining: allowance.quantity,
      })
      .onConflictDoUpdate({
        target: [membershipAllowances.membership_id, membershipAllowances.catalogue_item_id],
        set: {
          remaining: fresh
            ? allowance.quantity
            : sql`least(${membershipAllowances.remaining}, ${allowance.rollover_cap}) + ${allowance.quantity}`,
        },
      })
  }
}

/** A personal card-update link: its token goes in the notice, its hash on the membership. */
export function newCardLink(publicUrl: string): { url: string; hash: string } {
  const token = randomBytes(24).toString('base64url')
  return { url: `${publicUrl}/membership-card/${token}`, hash: hashLinkToken(token) }
}

export const hashLinkToken = (token: string) =>
  createHash('sha256').update(`membership-card:${token}`).digest('hex')

type NoticeTarget = {
  first_name: string
  email: string | null
  phone: string | null
  sms_subscription: boolean
  practice_name: string
}

async function noticeTarget(ex: Executor, m: MembershipRow): Promise<NoticeTarget | undefined> {
  const [row] = await ex
    .select({
      first_name: patients.first_name,
      email: patients.email,
      phone: patients.phone,
      sms_subscription: patients.sms_subscription,
      practice_name: practices.practice_name,
    })
    .from(patients)
    .innerJoin(practices, eq(practices.id, patients.practice_id))
    .where(eq(patients.id, m.patient_id))
  return row
}

/**
 * Queues one notice to the patient, in `tx`: an e-mail (a billing notice, sent whatever the
 * marketing consent) and an SMS where the patient consented to SMS. Answers how many were queued.
 */
async function notify(
  tx: Transaction,
  deps: Pick<BillingDeps, 'outbound'>,
  target: NoticeTarget,
  subject: string,
  body: string,
  link: string,
): Promise<number> {
  let queued = 0
  if (target.email) {
    await deps.outbound.enqueue(tx, {
      channel: 'email',
      to: target.email,
      subject,
      text: `Hi ${target.first_name},\n\n${body}\n\nUpdate your card: ${link}\n\n${target.practice_name}`,
      link,
    })
    queued++
  }
  if (target.phone && target.sms_subscription) {
    await deps.outbound.enqueue(tx, {
      channel: 'sms',
      to: target.phone,
      text: `${target.practice_name}: ${body} Update your card: ${link}`,
      code: '',
    })
    queued++
  }
  return queued
}

/**
 * What a billing run reads once instead of once per membership: plan versions (never changed
 * once written: a change of plan adds a version) and practices' payment accounts (one per
 * practice, never replaced; only a connected one is kept).
 */
type RunCache = { versions: Map<number, VersionRow>; accounts: Map<number, string> }

async function cachedVersion(ex: Executor, id: number, cache?: RunCache): Promise<VersionRow> {
  const known = cache?.versions.get(id)
  if (known) return known
  const version = await versionOf(ex, id)
  cache?.versions.set(id, version)
  return version
}

async function cachedAccount(
  ex: Executor,
  practiceId: number,
  cache?: RunCache,
): Promise<string | null> {
  const known = cache?.accounts.get(practiceId)
  if (known) return known
  const accountId = await accountOf(ex, practiceId)
  if (accountId) cache?.accounts.set(practiceId, accountId)
  return accountId
}

/** What one settled attempt did, for the run's counts. */
export type AttemptOutcome =
  | { kind: 'charged'; amount: number }
  | { kind: 'failed'; message: string; notices: number }
  | { kind: 'unknown' }
  | { kind: 'skipped' }

export function createBilling(deps: BillingDeps) {
  const { db, payments, log } = deps
  const clock = createBillingClock(db, deps.now)

  /** The version the cycle due is charged at: a change set for the renewal, else the current. */
  const dueVersionId = (m: MembershipRow) => m.next_plan_version_id ?? m.plan_version_id

  /**
   * Sends a pending cycle charge with its own key: paid (the gateway's charge id), declined (the
   * card's sentence), or null when the answer is lost or the gateway is down: the attempt stays
   * pending and is sent again with its key later (the reconciliation), which charges at most once.
   */
  async function sendCharge({
    m,
    charge,
    accountId,
  }: {
    m: MembershipRow
    charge: ChargeRow
    accountId: string
  }): Promise<{ ok: true; ref: string } | { ok: false; message: string } | null> {
    try {
      const result = await payments.charge({
        accountId,
        customerId: m.customer_id,
        amountCents: charge.amount_cents,
        description: `Membership cycle ${charge.cycle}`,
        metadata: {
          membership_id: String(m.id),
          charge_key: charge.idempotency_key,
          cycle: String(charge.cycle),
        },
        idempotencyKey: charge.idempotency_key,
      })
      return { ok: true, ref: result.chargeId }
    } catch (error) {
      if (error instanceof PaymentError && error.status === 402) {
        return { ok: false, message: error.message }
      }
      log.warn(`Membership ${m.id}: the charge's outcome is unknown; it will be asked again.`)
      return null
    }
  }

  /**
   * Settles `charge` (pending) of `m` (locked) as succeeded: the cycle paid, the period moved on,
   * its perks issued. Answers the membership as written.
   */
  async function settleSucceeded(
    tx: Transaction,
    m: MembershipRow,
    charge: ChargeRow,
    gatewayRef: string,
    at: Date,
    cache?: RunCache,
  ): Promise<MembershipRow> {
    await tx
      .update(membershipCharges)
      .set({ status: 'succeeded', gateway_ref: gatewayRef, settled_at: at })
      .where(eq(membershipCharges.id, charge.id))
    if (charge.purpose !== 'cycle') return m
    const version = await cachedVersion(tx, dueVersionId(m), cache)
    const start = m.renews_at ?? m.current_period_end
    const end = cycleEnd(start, version.interval as PlanInterval)
    const status = moveStatus(m.status, 'charge.succeeded', 'be charged')
    await writeEvent(
      tx,
      m,
      'charged',
      `Charged ${money(charge.amount_cents)} for cycle ${charge.cycle}${m.status === 'active' ? '' : ` (it was ${m.status.replace('_', ' ')})`}.`,
      at,
      { amount: charge.amount_cents, userId: charge.created_by },
    )
    // The perks first (they read the membership's id and bank only, which the update below does
    // not change but for the bank), so that the membership is written once, with the new bank.
    const perks = await issuePerks(tx, m, version, charge.cycle, { start, end }, charge.id, at)
    const [updated] = await tx
      .update(memberships)
      .set({
        status,
        cycle: charge.cycle,
        plan_version_id: version.id,
        next_plan_version_id: null,
        current_period_start: start,
        current_period_end: end,
        renews_at: end,
        next_payment_attempt_at: end,
        failed_attempts: 0,
        card_link_hash: null,
        ...(perks.bank === m.bank_cents ? {} : { bank_cents: perks.bank }),
      })
      .where(eq(memberships.id, m.id))
      .returning()
    return updated as MembershipRow
  }

  /**
   * Settles `charge` (pending) of `m` (locked) as declined: past due with the next retry, or
   * unpaid after the last; one notice per failure with a new card-update link.
   */
  async function settleFailed(
    tx: Transaction,
    m: MembershipRow,
    charge: ChargeRow,
    message: string,
    at: Date,
  ): Promise<number> {
    await tx
      .update(membershipCharges)
      .set({ status: 'failed', failure_message: message, settled_at: at })
      .where(eq(membershipCharges.id, charge.id))
    if (charge.purpose !== 'cycle') return 0
    const failed = m.failed_attempts + 1
    const renewal = m.renews_at ?? m.current_period_end
    const exhausted = m.status === 'unpaid' || failed > RETRY_SCHEDULE_DAYS.length
    const status =
      m.status === 'unpaid'
        ? moveStatus(m.status, 'charge.failed', 'be charged')
        : exhausted
          ? moveStatus(
              moveStatus(m.status, 'charge.failed', 'be charged'),
              'retries.exhausted',
              'stop retrying',
            )
          : moveStatus(m.status, 'charge.failed', 'be charged')
    const retryDays = RETRY_SCHEDULE_DAYS[failed - 1]
    const next =
      exhausted || retryDays === undefined
        ? null
        : new Date(Math.max(renewal.getTime() + retryDays * DAY_MS, at.getTime()))
    const link = newCardLink(deps.publicUrl)
    await tx
      .update(memberships)
      .set({
        status,
        failed_attempts: failed,
        next_payment_attempt_at: next,
        card_link_hash: link.hash,
      })
      .where(eq(memberships.id, m.id))
    await writeEvent(
      tx,
      m,
      'charge_failed',
      `The charge of ${money(charge.amount_cents)} for cycle ${charge.cycle} was declined: ${message}${next ? ` Next try on ${next.toISOString().slice(0, 10)}.` : ''}`,
      at,
      { amount: charge.amount_cents, userId: charge.created_by },
    )
    if (status === 'unpaid' && m.status !== 'unpaid') {
      await writeEvent(
        tx,
        m,
        'unpaid',
        'Every retry was declined: the membership is unpaid and its perks stop.',
        at,
      )
    } else if (status === 'past_due' && m.status === 'active') {
      await writeEvent(tx, m, 'past_due', 'The membership is past due.', at)
    }
    const target = await noticeTarget(tx, m)
    const [plan] = await tx
      .select({ name: membershipPlans.name })
      .from(membershipPlanVersions)
      .innerJoin(membershipPlans, eq(membershipPlans.id, membershipPlanVersions.plan_id))
      .where(eq(membershipPlanVersions.id, dueVersionId(m)))
    let notices = 0
    if (target) {
      notices = await notify(
        tx,
        deps,
        target,
        `Your ${plan?.name ?? 'membership'} payment was declined`,
        `Your ${plan?.name ?? 'membership'} payment of ${money(charge.amount_cents)} was declined (${message.replace(/\.$/, '')}).${next ? ` We will try again on ${next.toISOString().slice(0, 10)}.` : ' Your membership perks are on hold until it is paid.'}`,
        link.url,
      )
      if (notices > 0) {
        await writeEvent(
          tx,
          m,
          'notice_sent',
          `The patient was sent a link to update the card (${[target.email ? 'e-mail' : null, target.phone && target.sms_subscription ? 'SMS' : null].filter(Boolean).join(' and ')}).`,
          at,
        )
      }
    }
    return notices
  }

  /**
   * Sends the cycle charge now due for membership `id` and settles it: a pending attempt is sent
   * again with its own key, else a new attempt is written first. `wait`: wait for the row lock
   * (a person asked); the run skips a row another process holds.
   */
  async function attempt(
    id: number,
    options: { wait: boolean; userId?: number | null },
  ): Promise<AttemptOutcome> {
    return chargeDue(id, options, { now: clock.now })
  }

  /** {@link attempt} with its clock (and a run's caches, when one calls it). */
  async function chargeDue(
    id: number,
    options: { wait: boolean; userId?: number | null },
    context: { now: () => Promise<Date>; cache?: RunCache },
  ): Promise<AttemptOutcome> {
    const { cache } = context
    const at = await context.now()
    const claimed = await db.transaction(async (tx) => {
      const m = await lockMembership(tx, id, { skipLocked: !options.wait })
      if (!m) return null
      if (!(LIVE_STATUSES as readonly string[]).includes(m.status)) return null
      if (m.status === 'paused') return null
      const accountId = await cachedAccount(tx, m.practice_id, cache)
      if (!accountId) return null
      const cycle = m.cycle + 1
      // The cycle's attempts so far (a few at most): the one pending, else the next number.
      const earlier = await tx
        .select()
        .from(membershipCharges)
        .where(
          and(
            eq(membershipCharges.membership_id, m.id),
            eq(membershipCharges.cycle, cycle),
            eq(membershipCharges.purpose, 'cycle'),
          ),
        )
      const pending = earlier.find((c) => c.status === 'pending')
      if (pending) return { m, charge: pending, accountId }
      const version = await cachedVersion(tx, dueVersionId(m), cache)
      const attemptNo = earlier.reduce((most, c) => Math.max(most, c.attempt), 0) + 1
      const [charge] = await tx
        .insert(membershipCharges)
        .values({
          practice_id: m.practice_id,
          membership_id: m.id,
          cycle,
          purpose: 'cycle',
          attempt: attemptNo,
          amount_cents: version.price_cents,
          status: 'pending',
          idempotency_key: `mbr_${m.id}_c${cycle}_a${attemptNo}`,
          created_by: options.userId ?? null,
          created_at: at,
        })
        .returning()
      return { m, charge: charge as ChargeRow, accountId }
    })
    if (!claimed) return { kind: 'skipped' }
    const { charge, m } = claimed
    const outcome = await sendCharge(claimed)
    return db.transaction((tx) => settleLocked(tx, m.id, charge.id, outcome, at, cache))
  }

  /** Settles the pending charge `chargeId` with `outcome` (null: unknown, retried later). */
  async function settle(
    chargeId: number,
    outcome: { ok: true; ref: string } | { ok: false; message: string } | null,
    at: Date,
  ): Promise<AttemptOutcome> {
    return db.transaction(async (tx) => {
      const [head] = await tx
        .select({ membership_id: membershipCharges.membership_id })
        .from(membershipCharges)
        .where(eq(membershipCharges.id, chargeId))
      if (!head) return { kind: 'skipped' } as const
      return settleLocked(tx, head.membership_id, chargeId, outcome, at)
    })
  }

  /**
   * {@link settle} in `tx`, the charge's membership `membershipId` known: locks it, then settles
   * the charge if it is still pending (whoever brought its outcome first settled it).
   */
  async function settleLocked(
    tx: Transaction,
    membershipId: number,
    chargeId: number,
    outcome: { ok: true; ref: string } | { ok: false; message: string } | null,
    at: Date,
    cache?: RunCache,
  ): Promise<AttemptOutcome> {
    const m = await lockMembership(tx, membershipId)
    const [charge] = await tx
      .select()
      .from(membershipCharges)
      .where(eq(membershipCharges.id, chargeId))
    if (!m || !charge || charge.status !== 'pending') return { kind: 'skipped' } as const
    if (outcome === null) {
      await tx
        .update(memberships)
        .set({ next_payment_attempt_at: new Date(at.getTime() + 60 * 60 * 1000) })
        .where(eq(memberships.id, m.id))
      return { kind: 'unknown' } as const
    }
    if (outcome.ok) {
      await settleSucceeded(tx, m, charge, outcome.ref, at, cache)
      return { kind: 'charged', amount: charge.amount_cents } as const
    }
    const notices = await settleFailed(tx, m, charge, outcome.message, at)
    return { kind: 'failed', message: outcome.message, notices } as const
  }

  /**
   * The due work of `m` (locked) before its charge, at the run's clock `at`: a pause that ran out
   * resumes, a term set to end ends. Answers the membership as written when a charge is due, else
   * undefined.
   */
  async function dueWork(
    tx: Transaction,
    m: MembershipRow,
    at: Date,
  ): Promise<MembershipRow | undefined> {
    if (!m.next_payment_attempt_at || m.next_payment_attempt_at > at) return undefined
    if (
      m.status === 'active' &&
      m.cancel_at &&
      m.cancel_at <= (m.renews_at ?? m.current_period_end)
    ) {
      await tx
        .update(memberships)
        .set({
          status: moveStatus(m.status, 'term.ended', 'end'),
          ended_at: m.cancel_at,
          next_payment_attempt_at: null,
          renews_at: null,
          card_link_hash: null,
        })
        .where(eq(memberships.id, m.id))
      await writeEvent(
        tx,
        m,
        'ended',
        'The membership ended at the end of its term, as cancelled.',
        at,
      )
      return undefined
    }
    if (m.status === 'paused') {
      const [resumed] = await tx
        .update(memberships)
        .set({ status: moveStatus(m.status, 'resume', 'resume'), paused_cycles: 0 })
        .where(eq(memberships.id, m.id))
        .returning()
      await writeEvent(tx, m, 'resumed', 'The pause ran out: billing starts again.', at)
      return resumed
    }
    return m
  }

  /** Queues the 30-day notice of cards that expire before the renewal, once per card. */
  async function expiryNotices(at: Date): Promise<number> {
    const horizon = new Date(at.getTime() + CARD_EXPIRY_NOTICE_DAYS * DAY_MS)
    const due = await db
      .select({ id: memberships.id })
      .from(memberships)
      .where(
        and(
          eq(memberships.status, 'active'),
          isNotNull(memberships.renews_at),
          lte(memberships.renews_at, horizon),
          sql`${memberships.cancel_at} is null`,
          // The card works until the end of its expiry month.
          sql`make_date(${memberships.card_exp_year}, ${memberships.card_exp_month}, 1) + interval '1 month' <= ${memberships.renews_at}`,
          sql`${memberships.expiry_notice_for} is distinct from (${memberships.card_last4} || '/' || ${memberships.card_exp_month} || '/' || ${memberships.card_exp_year})`,
        ),
      )
      .limit(1000)
    let sent = 0
    for (const { id } of due) {
      sent += await db.transaction(async (tx) => {
        const m = await lockMembership(tx, id, { skipLocked: true })
        if (!m) return 0
        const key = `${m.card_last4}/${m.card_exp_month}/${m.card_exp_year}`
        if (m.expiry_notice_for === key) return 0
        const link = newCardLink(deps.publicUrl)
        await tx
          .update(memberships)
          .set({ expiry_notice_for: key, card_link_hash: link.hash })
          .where(eq(memberships.id, m.id))
        const target = await noticeTarget(tx, m)
        const n = target
          ? await notify(
              tx,
              deps,
              target,
              'Your card on file expires before your next membership payment',
              `The card ending ${m.card_last4} expires ${String(m.card_exp_month).padStart(2, '0')}/${m.card_exp_year}, before your next membership payment on ${(m.renews_at ?? m.current_period_end).toISOString().slice(0, 10)}.`,
              link.url,
            )
          : 0
        await writeEvent(
          tx,
          m,
          'card_expiry_notice',
          `The card ending ${m.card_last4} expires before the next renewal: the patient was asked to update it.`,
          at,
        )
        return n
      })
    }
    return sent
  }

  /** How long a run's claim on a due membership holds before another run may send it again. */
  const CLAIM_MS = 10 * 60 * 1000

  /**
   * One batch of the run: claims up to `size` due memberships (`FOR UPDATE SKIP LOCKED`, so two
   * processes take different ones), does their due work, writes their pending attempts in one
   * statement and moves their next attempt past the claim (a crashed run's claim lapses and the
   * next run sends the same keys again); then calls the gateway, `concurrency` at a time; then
   * settles the batch under the rows' locks: the paid ones in a few statements for all (charges,
   * cycles, bank credits, allowances, events, memberships), the declined ones one by one (their
   * notices), the unknown ones left pending. Answers null when nothing was due.
   */
  async function renewBatch(
    at: Date,
    cache: RunCache,
    size: number,
    concurrency: number,
  ): Promise<{ charged: number; failed: number; notices: number; unknown: number } | null> {
    type Claim = { m: MembershipRow; charge: ChargeRow; accountId: string }
    const claimed = await db.transaction(async (tx) => {
      const rows = await tx
        .select()
        .from(memberships)
        .where(
          and(
            lte(memberships.next_payment_attempt_at, at),
            inArray(memberships.status, [...LIVE_STATUSES]),
          ),
        )
        .orderBy(asc(memberships.next_payment_attempt_at), asc(memberships.id))
        .limit(size)
        .for('update', { skipLocked: true })
      if (rows.length === 0) return null
      const ready: { m: MembershipRow; accountId: string }[] = []
      const held: number[] = []
      for (const row of rows) {
        const m = await dueWork(tx, row, at)
        if (!m || m.status === 'paused') continue
        const accountId = await cachedAccount(tx, m.practice_id, cache)
        held.push(m.id)
        if (accountId) ready.push({ m, accountId })
      }
      if (held.length > 0) {
        await tx
          .update(memberships)
          .set({ next_payment_attempt_at: new Date(at.getTime() + CLAIM_MS) })
          .where(inArray(memberships.id, held))
      }
      if (ready.length === 0) return []
      const open = await tx
        .select()
        .from(membershipCharges)
        .where(
          and(
            inArray(
              membershipCharges.membership_id,
              ready.map((r) => r.m.id),
            ),
            eq(membershipCharges.purpose, 'cycle'),
            inArray(membershipCharges.status, ['pending', 'failed']),
          ),
        )
      const claims: Claim[] = []
      const fresh: (typeof membershipCharges.$inferInsert & {
        accountId: string
        m: MembershipRow
      })[] = []
      for (const { m, accountId } of ready) {
        const cycle = m.cycle + 1
        const earlier = open.filter((c) => c.membership_id === m.id && c.cycle === cycle)
        const pending = earlier.find((c) => c.status === 'pending')
        if (pending) {
          claims.push({ m, charge: pending, accountId })
          continue
        }
        const version = await cachedVersion(tx, dueVersionId(m), cache)
        const attemptNo = earlier.reduce((most, c) => Math.max(most, c.attempt), 0) + 1
        fresh.push({
          accountId,
          m,
          practice_id: m.practice_id,
          membership_id: m.id,
          cycle,
          purpose: 'cycle',
          attempt: attemptNo,
          amount_cents: version.price_cents,
          status: 'pending',
          idempotency_key: `mbr_${m.id}_c${cycle}_a${attemptNo}`,
          created_at: at,
        })
      }
      if (fresh.length > 0) {
        const written = await tx
          .insert(membershipCharges)
          .values(fresh.map(({ accountId: _a, m: _m, ...row }) => row))
          .returning()
        for (const charge of written) {
          const of = fresh.find((f) => f.membership_id === charge.membership_id)
          if (of) claims.push({ m: of.m, charge, accountId: of.accountId })
        }
      }
      return claims
    })
    if (claimed === null) return null
    const outcomes = new Map<
      number,
      { ok: true; ref: string } | { ok: false; message: string } | null
    >()
    let next = 0
    const worker = async () => {
      while (next < claimed.length) {
        const claim = claimed[next++] as Claim
        outcomes.set(claim.charge.id, await sendCharge(claim))
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker))
    const counts = { charged: 0, failed: 0, notices: 0, unknown: 0 }
    if (claimed.length === 0) return counts
    await db.transaction(async (tx) => {
      const ids = claimed.map((c) => c.m.id).sort((x, y) => x - y)
      const locked = await tx
        .select()
        .from(memberships)
        .where(inArray(memberships.id, ids))
        .orderBy(asc(memberships.id))
        .for('update')
      const charges = await tx
        .select()
        .from(membershipCharges)
        .where(
          inArray(
            membershipCharges.id,
            claimed.map((c) => c.charge.id),
          ),
        )
      const paid: { m: MembershipRow; charge: ChargeRow; ref: string }[] = []
      const unknown: number[] = []
      for (const { charge: claim } of claimed) {
        const charge = charges.find((c) => c.id === claim.id)
        const m = locked.find((r) => r.id === claim.membership_id)
        // Settled meanwhile by whoever brought its outcome first (a webhook, the desk).
        if (!charge || !m || charge.status !== 'pending') continue
        const outcome = outcomes.get(charge.id) ?? null
        if (outcome === null) {
          unknown.push(m.id)
          counts.unknown++
        } else if (outcome.ok) {
          paid.push({ m, charge, ref: outcome.ref })
          counts.charged++
        } else {
          counts.failed++
          counts.notices += await settleFailed(tx, m, charge, outcome.message, at)
        }
      }
      if (unknown.length > 0) {
        await tx
          .update(memberships)
          .set({ next_payment_attempt_at: new Date(at.getTime() + 60 * 60 * 1000) })
          .where(inArray(memberships.id, unknown))
      }
      if (paid.length > 0) await settlePaid(tx, paid, at, cache)
    })
    return counts
  }

  /**
   * {@link settleSucceeded} for many cycle charges at once (their memberships locked by `tx`): a
   * statement per table for all of them, not per membership.
   */
  async function settlePaid(
    tx: Transaction,
    paid: { m: MembershipRow; charge: ChargeRow; ref: string }[],
    at: Date,
    cache: RunCache,
  ): Promise<void> {
    const iso = at.toISOString()
    await tx.execute(sql`
      update membership_charges c set status = 'succeeded', gateway_ref = v.ref, settled_at = ${iso}::timestamptz
      from (values ${sql.join(
        paid.map(({ charge, ref }) => sql`(${charge.id}::int, ${ref}::text)`),
        sql`, `,
      )}) as v(id, ref)
      where c.id = v.id and c.status = 'pending'`)
    const rows = []
    for (const { m, charge } of paid) {
      const version = await cachedVersion(tx, dueVersionId(m), cache)
      const start = m.renews_at ?? m.current_period_end
      const end = cycleEnd(start, version.interval as PlanInterval)
      rows.push({
        m,
        charge,
        version,
        start,
        end,
        status: moveStatus(m.status, 'charge.succeeded', 'be charged'),
      })
    }
    await tx.insert(membershipEvents).values(
      rows.map(({ m, charge }) => ({
        practice_id: m.practice_id,
        membership_id: m.id,
        kind: 'charged',
        detail: `Charged ${money(charge.amount_cents)} for cycle ${charge.cycle}${m.status === 'active' ? '' : ` (it was ${m.status.replace('_', ' ')})`}.`,
        amount_cents: charge.amount_cents,
        user_id: charge.created_by,
        at,
      })),
    )
    const issued = await tx
      .insert(membershipCycles)
      .values(
        rows.map(({ m, charge, version, start, end }) => ({
          membership_id: m.id,
          cycle: charge.cycle,
          practice_id: m.practice_id,
          plan_version_id: version.id,
          charge_id: charge.id,
          period_start: start,
          period_end: end,
          bank_cents: version.perks.bank_cents,
          created_at: at,
        })),
      )
      .onConflictDoNothing()
      .returning({ membership_id: membershipCycles.membership_id })
    const perked = rows.filter((r) => issued.some((i) => i.membership_id === r.m.id))
    const bank = new Map(rows.map((r) => [r.m.id, r.m.bank_cents]))
    const credits = perked.filter((r) => r.version.perks.bank_cents > 0)
    if (credits.length > 0) {
      await tx.insert(membershipBankEntries).values(
        credits.map(({ m, charge, version }) => {
          const after = m.bank_cents + version.perks.bank_cents
          bank.set(m.id, after)
          return {
            practice_id: m.practice_id,
            membership_id: m.id,
            kind: 'credit',
            cycle: charge.cycle,
            amount_cents: version.perks.bank_cents,
            balance_after: after,
            created_at: at,
          }
        }),
      )
    }
    // Allowances refill per version: those the version no longer has go, each of its items rolls
    // over up to its cap and gets the cycle's units.
    const byVersion = new Map<number, typeof perked>()
    for (const r of perked) byVersion.set(r.version.id, [...(byVersion.get(r.version.id) ?? []), r])
    for (const group of byVersion.values()) {
      const version = (group[0] as (typeof perked)[number]).version
      const ids = group.map((r) => r.m.id)
      const items = version.perks.allowances.map((a) => a.catalogue_item_id)
      await tx.delete(membershipAllowances).where(
        and(
          inArray(membershipAllowances.membership_id, ids),
          items.length
            ? sql`${membershipAllowances.catalogue_item_id} not in (${sql.join(
                items.map((id) => sql`${id}`),
                sql`, `,
              )})`
            : undefined,
        ),
      )
      for (const allowance of version.perks.allowances) {
        await tx
          .insert(membershipAllowances)
          .values(
            group.map(({ m }) => ({
              membership_id: m.id,
              catalogue_item_id: allowance.catalogue_item_id,
              practice_id: m.practice_id,
              remaining: allowance.quantity,
            })),
          )
          .onConflictDoUpdate({
            target: [membershipAllowances.membership_id, membershipAllowances.catalogue_item_id],
            set: {
              remaining: sql`least(${membershipAllowances.remaining}, ${allowance.rollover_cap}) + ${allowance.quantity}`,
            },
          })
      }
    }
    if (perked.length > 0) {
      await tx.insert(membershipEvents).values(
        perked.map(({ m, charge, version }) => ({
          practice_id: m.practice_id,
          membership_id: m.id,
          kind: 'perks_issued',
          detail: perksText(version, charge.cycle),
          amount_cents: version.perks.bank_cents || null,
          user_id: null,
          at,
        })),
      )
    }
    await tx.execute(sql`
      update memberships m set
        status = v.status, cycle = v.cycle, plan_version_id = v.version_id,
        next_plan_version_id = null, current_period_start = v.period_start,
        current_period_end = v.period_end, renews_at = v.period_end,
        next_payment_attempt_at = v.period_end, failed_attempts = 0, card_link_hash = null,
        bank_cents = v.bank
      from (values ${sql.join(
        rows.map(
          ({ m, charge, version, start, end, status }) =>
            sql`(${m.id}::int, ${status}::text, ${charge.cycle}::int, ${version.id}::int, ${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz, ${bank.get(m.id) ?? m.bank_cents}::int)`,
        ),
        sql`, `,
      )}) as v(id, status, cycle, version_id, period_start, period_end, bank)
      where m.id = v.id`)
  }

  /**
   * Runs everything due at the billing clock: ended terms, pauses that ran out, renewals and
   * retries (only the memberships whose attempt is due are read: index `memberships_due_idx`),
   * then the card-expiry notices. Safe on several processes at once: a row another holds is
   * skipped, and a pending attempt is sent again with its own key.
   */
  async function runDue(
    options: { concurrency?: number; batch?: number } = {},
  ): Promise<{ charged: number; failed: number; notices: number; unknown: number; at: Date }> {
    const at = await clock.now()
    const cache: RunCache = { versions: new Map(), accounts: new Map() }
    const counts = { charged: 0, failed: 0, notices: 0, unknown: 0 }
    // Each batch moves every membership it claims past `at` (a renewal to its next period end, a
    // decline to its next retry, a claim or an unknown outcome later): the loop ends when no
    // membership is due. After a clock jump one may be due again and is taken again.
    for (;;) {
      const done = await renewBatch(at, cache, options.batch ?? 200, options.concurrency ?? 8)
      if (done === null) break
      counts.charged += done.charged
      counts.failed += done.failed
      counts.notices += done.notices
      counts.unknown += done.unknown
    }
    counts.notices += await expiryNotices(at)
    if (counts.notices > 0) deps.outbound.kick()
    return { ...counts, at }
  }

  /**
   * Applies a gateway event once (by its id, in the transaction that applies it): the outcome of
   * a charge whose answer was lost settles its pending attempt; anything else is only recorded.
   */
  async function applyEvent(event: {
    id: string
    type: string
    data: {
      object: { id: string; metadata: Record<string, string>; failure_message: string | null }
    }
  }): Promise<{ applied: boolean }> {
    const key = event.data.object.metadata?.charge_key
    const at = await clock.now()
    return db.transaction(async (tx) => {
      const inserted = await tx
        .insert(paymentWebhookEvents)
        .values({ id: event.id, type: event.type, received_at: at })
        .onConflictDoNothing()
        .returning({ id: paymentWebhookEvents.id })
      if (inserted.length === 0) return { applied: false }
      if (!key || (event.type !== 'charge.succeeded' && event.type !== 'charge.failed')) {
        return { applied: true }
      }
      const [head] = await tx
        .select({ membership_id: membershipCharges.membership_id })
        .from(membershipCharges)
        .where(eq(membershipCharges.idempotency_key, key))
      if (!head) return { applied: true }
      const m = await lockMembership(tx, head.membership_id)
      const [charge] = await tx
        .select()
        .from(membershipCharges)
        .where(eq(membershipCharges.idempotency_key, key))
      if (!m || !charge || charge.status !== 'pending') return { applied: true }
      if (event.type === 'charge.succeeded') {
        await settleSucceeded(tx, m, charge, event.data.object.id, at)
      } else {
        await settleFailed(
          tx,
          m,
          charge,
          event.data.object.failure_message ?? 'Your card was declined.',
          at,
        )
      }
      return { applied: true }
    })
  }

  return { clock, attempt, settle, runDue, applyEvent, settleSucceeded, settleFailed }
}

export type Billing = ReturnType<typeof createBilling>
