/**
 * What a signed-in patient sees and does in the wallet: their points, history, offers and
 * membership, in the practice's name; claiming an offer, their consent per channel, their card,
 * pausing or cancelling within the plan's rules, signing out. Every read and change is the
 * session's patient's own, in the session's practice; every change is audited (no staff member:
 * the patient did it) in its transaction.
 */
import { createHash } from 'node:crypto'
import { and, count, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import { describeEntry } from '#domain/ledger.ts'
import {
  cycleEnd,
  LIVE_STATUSES,
  type Membership,
  money,
  PAUSE_CYCLES,
  type PlanInterval,
} from '#domain/memberships.ts'
import { offerTerms } from '#domain/offers.ts'
import { PROMOTION_MESSAGES, promotionStatus } from '#domain/promotions.ts'
import {
  WALLET_MESSAGES,
  type WalletConsentInput,
  type WalletMe,
  type WalletMembership,
  type WalletOffer,
} from '#domain/wallet.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import {
  patientPromotions,
  patientSessions,
  patients,
  promotionSends,
  promotions,
} from '#server/db/schema.ts'
import { conflict, DomainError, notFound as missing } from '#server/lib/domain-error.ts'
import { createLedger, pointValueCents } from '#server/modules/ledger/index.ts'
import { type ChangeActor, membershipsOf } from '#server/modules/memberships/index.ts'
import { claimPromotion, offerValueText } from '#server/modules/promotions/index.ts'
import { walletPractice } from './codes.ts'
import type { PatientSession } from './sessions.ts'

/** A patient's referral mark: stable, names no one, and reveals nothing of their links. */
export function referralMark(unsubscribeId: string): string {
  return createHash('sha256').update(`referral:${unsubscribeId}`).digest('base64url').slice(0, 12)
}

/** How far ahead "points expiring soon" looks (as the patient's profile does). */
const EXPIRING_SOON_DAYS = 60
/** History lines the wallet shows. */
const HISTORY_LINES = 50

const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' })
const dayOf = (iso: string | Date) => day.format(typeof iso === 'string' ? new Date(iso) : iso)

/** The plan's cancellation rules in a sentence. */
export function cancelRulesText(plan: Membership['plan']): string {
  const parts = [
    plan.min_cycles > 1
      ? `The minimum term is ${plan.min_cycles} payments.`
      : 'There is no minimum term.',
    plan.notice_days > 0
      ? `Cancelling needs ${plan.notice_days} days' notice before a renewal.`
      : 'No notice is needed.',
    'Cancelling stops the renewals from the end of the term; the perks last until then, and the money in your bank stays yours.',
  ]
  return parts.join(' ')
}

function statusText(m: Membership): string {
  switch (m.status) {
    case 'active':
      return m.cancel_at
        ? `Active until ${dayOf(m.cancel_at)}: it will not renew.`
        : `Active: renews on ${dayOf(m.next_payment_attempt_at ?? m.current_period_end)}.`
    case 'past_due':
      return `Past due: your last payment was declined. ${m.next_payment_attempt_at ? `We will try again on ${dayOf(m.next_payment_attempt_at)}; ` : ''}update your card to pay now.`
    case 'paused':
      return m.resumes_at ? `Paused until ${dayOf(m.resumes_at)}.` : 'Paused.'
    case 'unpaid':
      return 'Unpaid: every retry was declined and the perks are stopped. Update your card to start it again.'
    case 'cancelled':
      return 'Cancelled.'
    case 'ended':
      return 'Ended.'
  }
}

function discountText(m: Membership): string | null {
  const { discount_percent, discount_item_ids } = m.plan.perks
  if (discount_percent <= 0) return null
  return discount_item_ids.length === 0
    ? `${discount_percent}% off every treatment`
    : `${discount_percent}% off chosen treatments`
}

export function createWalletService(ctx: ServerContext) {
  const { db } = ctx
  const ledger = createLedger({ db, now: ctx.now })
  const memberships = () => membershipsOf(ctx)

  /** The patient of the session, in its practice. */
  async function patientOf(session: PatientSession) {
    const [row] = await db
      .select()
      .from(patients)
      .where(and(eq(patients.id, session.patientId), eq(patients.practice_id, session.practiceId)))
    if (!row) throw missing(WALLET_MESSAGES.signedOut)
    return row
  }

  /** The patient's membership that still runs (one at a time), or null. */
  async function liveMembership(session: PatientSession): Promise<Membership | null> {
    const all = await memberships().service.patientMemberships(
      session.practiceId,
      session.patientId,
    )
    return all.find((m) => (LIVE_STATUSES as readonly string[]).includes(m.status)) ?? null
  }

  /** Whether a membership's minimum term is served at `at`. */
  function termServed(m: Membership, at: Date): boolean {
    const minimum = cycleEnd(
      new Date(m.started_at),
      m.plan.interval as PlanInterval,
      m.plan.min_cycles,
    )
    return minimum.getTime() <= at.getTime()
  }

  /**
   * How the patient may cancel now: an active membership at the first end the rules allow; a
   * paused, past-due or unpaid one now, once its minimum term is served; else why not.
   */
  async function cancelOption(
    practiceId: number,
    m: Membership,
    at: Date,
  ): Promise<
    { at: 'period_end'; effective: Date } | { at: 'now'; effective: Date } | { refused: string }
  > {
    if (m.status === 'active') {
      if (m.cancel_at) {
        return {
          refused: `Your membership is already cancelled: it ends on ${dayOf(m.cancel_at)}.`,
        }
      }
      const effective = await memberships().service.cancelEffectiveAt(practiceId, m.id, at)
      return { at: 'period_end', effective }
    }
    if (m.status === 'paused' || m.status === 'past_due' || m.status === 'unpaid') {
      if (!termServed(m, at)) {
        const until = cycleEnd(new Date(m.started_at), m.plan.interval, m.plan.min_cycles)
        return {
          refused: `Your plan has a minimum term of ${m.plan.min_cycles} payments, until ${dayOf(until)}: ${m.status === 'paused' ? 'you can cancel it online once it resumes' : 'you can cancel it online once your card is updated'}, or ask the practice.`,
        }
      }
      return { at: 'now', effective: at }
    }
    return { refused: WALLET_MESSAGES.noMembership }
  }

  async function membershipAnswer(
    session: PatientSession,
    m: Membership | null,
  ): Promise<WalletMembership | null> {
    if (!m) return null
    const at = await memberships().billing.clock.now()
    const option = await cancelOption(session.practiceId, m, at)
    const owes = m.status === 'past_due' || m.status === 'unpaid'
    return {
      id: m.id,
      plan_name: m.plan.name,
      status: m.status,
      status_text: statusText(m),
      price_cents: m.plan.price_cents,
      interval: m.plan.interval,
      next_bill_at:
        m.cancel_at &&
        m.next_payment_attempt_at &&
        new Date(m.next_payment_attempt_at) >= new Date(m.cancel_at)
          ? null
          : m.next_payment_attempt_at,
      amount_due_cents: owes ? (m.next_plan?.price_cents ?? m.plan.price_cents) : 0,
      perks_left: m.allowances.map((a) => ({ name: a.name, remaining: a.remaining })),
      discount_text: discountText(m),
      bank_cents: m.bank_cents,
      card: m.card,
      cancel_at_period_end: m.cancel_at_period_end,
      cancel_at: m.cancel_at,
      resumes_at: m.resumes_at,
      can_pause: m.status === 'active' && !m.cancel_at,
      pause_max_cycles: PAUSE_CYCLES.max,
      can_cancel: !('refused' in option),
      cancel_effective_at: 'refused' in option ? null : option.effective.toISOString(),
      cancel_rules_text: cancelRulesText(m.plan),
      can_update_card: true,
    }
  }

  /**
   * The offers the patient may see: the practice's live offers without a code, and those it sent
   * to this patient (a code-only offer sent to them needs no code, as on the offer page); with
   * where each stands for them.
   */
  async function offersOf(session: PatientSession, points: number): Promise<WalletOffer[]> {
    const now = ctx.now()
    const sent = db
      .select({ id: promotionSends.promotion_id })
      .from(promotionSends)
      .where(
        and(
          eq(promotionSends.practice_id, session.practiceId),
          eq(promotionSends.patient_id, session.patientId),
        ),
      )
    const rows = await db
      .select()
      .from(promotions)
      .where(
        and(
          eq(promotions.practice_id, session.practiceId),
          or(isNull(promotions.code), inArray(promotions.id, sent)),
        ),
      )
      .orderBy(sql`${promotions.ends_at} asc nulls last`, desc(promotions.id))
    const live = rows.filter((row) => promotionStatus(row, now) === 'live')
    if (live.length === 0) return []
    const ids = live.map((row) => row.id)
    const mine = await db
      .select({
        promotion_id: patientPromotions.promotion_id,
        status: patientPromotions.status,
        ends_at: patientPromotions.ends_at,
      })
      .from(patientPromotions)
      .where(
        and(
          eq(patientPromotions.patient_id, session.patientId),
          inArray(patientPromotions.promotion_id, ids),
        ),
      )
    const totals = await db
      .select({ promotion_id: patientPromotions.promotion_id, n: count() })
      .from(patientPromotions)
      .where(inArray(patientPromotions.promotion_id, ids))
      .groupBy(patientPromotions.promotion_id)
    const offers: WalletOffer[] = []
    for (const row of live) {
      const claims = mine.filter((c) => c.promotion_id === row.id)
      const claimed = claims.some(
        (c) => c.status === 'claimed' && (!c.ends_at || c.ends_at.getTime() > now.getTime()),
      )
      const total = Number(totals.find((t) => t.promotion_id === row.id)?.n ?? 0)
      let reason: string | null = null
      if (!claimed) {
        if (claims.length >= row.per_patient_limit)
          reason = PROMOTION_MESSAGES.perPatient(row.per_patient_limit)
        else if (row.max_redemptions !== null && total >= row.max_redemptions)
          reason = PROMOTION_MESSAGES.soldOut
      }
      const value = await offerValueText(db, row)
      const detail = offerTerms({
        title: row.title,
        description: row.description,
        points_cost: row.points_cost,
        bonus_points: row.points,
        ends_at: row.ends_at?.toISOString() ?? null,
        value,
      })
      offers.push({
        promotion_id: row.id,
        title: row.title,
        detail:
          row.points_cost > points && !claimed
            ? `${detail} · you have ${points.toLocaleString('en-US')} points`
            : detail,
        description: row.description,
        points_cost: row.points_cost,
        ends_at: row.ends_at?.toISOString() ?? null,
        claimed,
        can_claim: !claimed && reason === null,
        reason,
      })
    }
    return offers
  }

  async function me(session: PatientSession): Promise<WalletMe> {
    const patient = await patientOf(session)
    const [practice, pointValue, lots, history, membership] = await Promise.all([
      walletPractice(db, session.practiceId),
      pointValueCents(db, session.practiceId),
      ledger.lots(patient.id),
      ledger.history(session.practiceId, patient.id, { page: 1, pageSize: HISTORY_LINES }),
      liveMembership(session),
    ])
    const horizon = ctx.now().getTime() + EXPIRING_SOON_DAYS * 86_400_000
    const base = ctx.config.publicUrl.replace(/\/+$/, '')
    return {
      practice,
      patient: {
        first_name: patient.first_name,
        points: patient.points,
        points_value_cents: patient.points * pointValue,
        expiring: lots
          .filter((lot) => lot.expires_at && lot.expires_at.getTime() <= horizon)
          .map((lot) => ({
            points: lot.remaining,
            expires_on: lot.expires_at?.toISOString().slice(0, 10) ?? '',
          })),
        email_subscription: patient.email_subscription,
        sms_subscription: patient.sms_subscription,
        has_email: Boolean(patient.email),
        has_phone: Boolean(patient.phone),
        referral_url: `${base}/wallet/${session.practiceId}?ref=${referralMark(patient.unsubscribe_id)}`,
      },
      history: history.data.map((entry) => ({
        at: entry.created_at,
        kind: entry.kind,
        text: describeEntry(entry),
        points: entry.points,
      })),
      offers: await offersOf(session, patient.points),
      membership: await membershipAnswer(session, membership),
      session: { expires_at: session.expiresAt.toISOString() },
    }
  }

  /** An audit event of the patient's own doing, in `tx`. */
  function record(
    tx: Transaction | typeof db,
    session: PatientSession,
    ip: string,
    action: Parameters<typeof recordWithin>[1]['action'],
    details: Record<string, string | number | boolean | null>,
    at: Date,
  ) {
    return recordWithin(
      tx,
      {
        action,
        practiceId: session.practiceId,
        ip,
        details: { patient_id: session.patientId, session_id: session.id, ...details },
      },
      at,
    )
  }

  /** The patient as the one who changes their membership, audited as `action`. */
  const patientActor = (
    session: PatientSession,
    ip: string,
    action: 'wallet.membership_cancelled' | 'wallet.membership_paused',
  ): ChangeActor => ({
    practiceId: session.practiceId,
    userId: null,
    record: (tx, m, change, at) =>
      record(tx, session, ip, action, { membership_id: m.id, change }, at),
  })

  async function ownMembership(session: PatientSession): Promise<Membership> {
    const m = await liveMembership(session)
    if (!m) throw conflict(WALLET_MESSAGES.noMembership)
    return m
  }

  return {
    me,

    async claim(session: PatientSession, promotionId: number, ip: string) {
      const patient = await patientOf(session)
      const offers = await offersOf(session, patient.points)
      const offer = offers.find((o) => o.promotion_id === promotionId)
      if (!offer) throw missing(WALLET_MESSAGES.offerNotFound)
      if (!offer.claimed) {
        const [row] = await db
          .select({ code: promotions.code })
          .from(promotions)
          .where(
            and(eq(promotions.id, promotionId), eq(promotions.practice_id, session.practiceId)),
          )
        await claimPromotion(db, {
          practiceId: session.practiceId,
          promotionId,
          patientId: session.patientId,
          // No staff member: the patient claimed it (audited as such by the claim).
          actor: null,
          ip,
          code: row?.code ?? undefined,
          now: ctx.now(),
        })
      }
      return { message: WALLET_MESSAGES.offerClaimed, wallet: await me(session) }
    },

    async consent(session: PatientSession, input: WalletConsentInput, ip: string) {
      const patient = await patientOf(session)
      if (input.email_subscription && !patient.email) {
        throw conflict(WALLET_MESSAGES.emailNeedsEmail)
      }
      if (input.sms_subscription && !patient.phone) throw conflict(WALLET_MESSAGES.smsNeedsPhone)
      const changed =
        input.email_subscription !== patient.email_subscription ||
        input.sms_subscription !== patient.sms_subscription
      if (changed) {
        const at = ctx.now()
        await db.transaction(async (tx) => {
          await tx
            .update(patients)
            .set({
              email_subscription: input.email_subscription,
              sms_subscription: input.sms_subscription,
            })
            .where(eq(patients.id, patient.id))
          await record(
            tx,
            session,
            ip,
            'wallet.consent_changed',
            {
              email_subscription: input.email_subscription,
              sms_subscription: input.sms_subscription,
            },
            at,
          )
        })
      }
      return { message: WALLET_MESSAGES.consentSaved, wallet: await me(session) }
    },

    /**
     * Saves a new card for the patient's membership; a past-due or unpaid one is charged at once,
     * through billing's one-charge-per-cycle rule: the same call again charges nothing more.
     */
    async card(session: PatientSession, token: string, ip: string) {
      const m = await ownMembership(session)
      const owed = m.status === 'past_due' || m.status === 'unpaid'
      const amount = owed ? (m.next_plan?.price_cents ?? m.plan.price_cents) : 0
      const result = await memberships().service.cardByPatient(session.practiceId, m.id, token)
      const charged = result.charged === 'charged'
      await record(
        db,
        session,
        ip,
        'wallet.card_updated',
        {
          membership_id: m.id,
          last4: result.m.card_last4,
          charged,
          amount_cents: charged ? amount : 0,
        },
        ctx.now(),
      )
      if (result.charged === 'failed') {
        throw new DomainError(
          'payment-declined',
          `Your card is saved, but the payment was declined: ${result.message ?? 'please try another card.'}`,
          { code: 'card_declined' },
        )
      }
      return {
        message: charged ? WALLET_MESSAGES.cardCharged(money(amount)) : WALLET_MESSAGES.cardSaved,
        charged,
        wallet: await me(session),
      }
    },

    async cancel(session: PatientSession, ip: string) {
      const m = await ownMembership(session)
      const at = await memberships().billing.clock.now()
      const option = await cancelOption(session.practiceId, m, at)
      if ('refused' in option) throw conflict(option.refused)
      await memberships().service.cancelAs(
        patientActor(session, ip, 'wallet.membership_cancelled'),
        m.id,
        { at: option.at, refund: false, requested_by: 'patient' },
        false,
      )
      const message =
        option.at === 'now'
          ? 'Your membership is cancelled now. The money in your bank stays yours.'
          : WALLET_MESSAGES.cancelScheduled(dayOf(option.effective))
      return { message, wallet: await me(session) }
    },

    async pause(session: PatientSession, cycles: number, ip: string) {
      const m = await ownMembership(session)
      if (m.status === 'active' && m.cancel_at) {
        throw conflict(
          `Your membership is set to end on ${dayOf(m.cancel_at)}: it cannot be paused.`,
        )
      }
      if (m.status !== 'active') {
        throw conflict(
          `Only an active membership can be paused; yours is ${m.status.replace('_', ' ')}.`,
        )
      }
      const paused = await memberships().service.pauseAs(
        patientActor(session, ip, 'wallet.membership_paused'),
        m.id,
        cycles,
        false,
      )
      const resumes = 'resumes_at' in paused ? paused.resumes_at : null
      return {
        message: WALLET_MESSAGES.paused(resumes ? dayOf(resumes) : ''),
        wallet: await me(session),
      }
    },

    async logout(session: PatientSession, ip: string) {
      const at = ctx.now()
      await db.transaction(async (tx) => {
        await tx
          .update(patientSessions)
          .set({ revoked_at: at, revoked_reason: 'logout' })
          .where(and(eq(patientSessions.id, session.id), isNull(patientSessions.revoked_at)))
        await record(tx, session, ip, 'wallet.signed_out', {}, at)
      })
      return { signed_out: true as const }
    },
  }
}
