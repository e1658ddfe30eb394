/**
 * The member at checkout: the patient's membership read (and locked, inside a posting) with what
 * its plan version gives, the perks applied to the priced lines, the bank paid from, and all of it
 * put back by an undo. The pricing itself is the pure `applyMembership` of domain/member-pricing.
 */
import { and, desc, eq, gt, inArray, or, sql } from 'drizzle-orm'
import {
  applyMembership,
  type MemberLineInput,
  type MemberPerks,
  type MemberPricing,
  multipliedPoints,
} from '#domain/member-pricing.ts'
import { money, type PlanPerks } from '#domain/memberships.ts'
import { applyOffer, type OfferResult } from '#domain/offer-value.ts'
import { type MemberAtCheckout, VISIT_MESSAGES } from '#domain/visits.ts'
import type { Transaction } from '#server/db/client.ts'
import {
  billingClock,
  membershipAllowances,
  membershipBankEntries,
  membershipEvents,
  membershipPlans,
  membershipPlanVersions,
  memberships,
  procedures,
} from '#server/db/schema.ts'
import { conflict } from '#server/lib/domain-error.ts'
import { type Executor, unprocessable } from './shared.ts'

/**
 * `at` (the wall clock) on the billing clock: moved by the offset `POST /dev/clock` set, as the
 * memberships module's `createBillingClock` reads it (not imported: memberships imports visits).
 */
async function billingInstant(tx: Transaction, at: Date): Promise<Date> {
  const [row] = await tx
    .select({ offset_ms: billingClock.offset_ms })
    .from(billingClock)
    .where(eq(billingClock.id, 1))
  return new Date(at.getTime() + (row?.offset_ms ?? 0))
}

/** The patient's membership as the checkout needs it. */
export type Member = {
  id: number
  practice_id: number
  plan_name: string
  interval: 'month' | 'quarter' | 'year'
  status: MemberAtCheckout['status']
  bank_cents: number
  perks: PlanPerks
  renews_at: Date | null
  /** Units left this cycle, by procedure id, with the procedure's name. */
  allowances: { catalogue_item_id: number; name: string; remaining: number }[]
}

const LIVE = ['active', 'past_due', 'paused', 'unpaid']

/**
 * The membership the checkout works with: the patient's live one, or else the latest that ended
 * with value left in its bank (that value stays the patient's). Locked when `lock` (inside the
 * posting's transaction, after the patient's row: the same order as enrolment, and billing never
 * locks a patient, so the two never wait on each other in a circle).
 */
export async function memberOf(
  ex: Executor,
  practiceId: number,
  patientId: number,
  lock = false,
): Promise<Member | null> {
  const query = ex
    .select({
      id: memberships.id,
      practice_id: memberships.practice_id,
      status: memberships.status,
      bank_cents: memberships.bank_cents,
      renews_at: memberships.renews_at,
      plan_name: membershipPlans.name,
      interval: membershipPlanVersions.interval,
      perks: membershipPlanVersions.perks,
    })
    .from(memberships)
    .innerJoin(membershipPlanVersions, eq(membershipPlanVersions.id, memberships.plan_version_id))
    .innerJoin(membershipPlans, eq(membershipPlans.id, membershipPlanVersions.plan_id))
    .where(
      and(
        eq(memberships.practice_id, practiceId),
        eq(memberships.patient_id, patientId),
        or(inArray(memberships.status, LIVE), gt(memberships.bank_cents, 0)),
      ),
    )
    // The live one first (at most one per patient), then the newest ended one.
    .orderBy(
      sql`case when ${memberships.status} in ('active', 'past_due', 'paused', 'unpaid') then 0 else 1 end`,
      desc(memberships.id),
    )
    .limit(1)
  const [row] = lock ? await query.for('update', { of: memberships }) : await query
  if (!row) return null
  const allowances = await ex
    .select({
      catalogue_item_id: membershipAllowances.catalogue_item_id,
      remaining: membershipAllowances.remaining,
      name: procedures.name,
    })
    .from(membershipAllowances)
    .innerJoin(procedures, eq(procedures.id, membershipAllowances.catalogue_item_id))
    .where(eq(membershipAllowances.membership_id, row.id))
  return {
    ...row,
    interval: row.interval as Member['interval'],
    status: row.status as Member['status'],
    allowances,
  }
}

/** The plan's perks as the pricing reads them; null when they do not apply (not active). */
export function perksOf(member: Member | null): MemberPerks | null {
  if (member?.status !== 'active') return null
  return {
    discount_percent: member.perks.discount_percent,
    discount_item_ids: member.perks.discount_item_ids,
    points_multiplier: member.perks.points_multiplier,
    allowances: new Map(member.allowances.map((a) => [a.catalogue_item_id, a.remaining])),
  }
}

/** The flag the desk reads before anything is used, or null when the perks apply. */
export function memberFlag(member: Member): string | null {
  switch (member.status) {
    case 'active':
      return null
    case 'past_due':
      return VISIT_MESSAGES.memberPastDue(member.plan_name)
    case 'unpaid':
      return VISIT_MESSAGES.memberUnpaid(member.plan_name)
    case 'paused':
      return VISIT_MESSAGES.memberPaused(
        member.plan_name,
        member.renews_at ? member.renews_at.toISOString().slice(0, 10) : 'it resumes',
      )
    default:
      return VISIT_MESSAGES.memberEnded(member.plan_name)
  }
}

/** The priced lines as the member pricing reads them. */
function memberInput(lines: readonly MemberLineInput[]): MemberLineInput[] {
  return lines.map((line) => ({
    kind: line.kind,
    item_id: line.item_id,
    unit_price_cents: line.unit_price_cents,
    quantity: line.quantity,
    points: line.points,
  }))
}

/** A visit's money and points once the membership and the offer are applied. */
export type Priced = {
  member: Member | null
  pricing: MemberPricing
  offer: OfferResult
  multiplier: number
  /** Each line's points after everything, multiplied. */
  points: number[]
}

/**
 * The membership's perks on the lines, then the offer (`promotion`, already checked) on what is
 * left, then the multiplier on the points: the server's numbers, the same for the preview and the
 * posting.
 */
export function priceForMember<L extends MemberLineInput>(
  lines: readonly L[],
  member: Member | null,
  offerOf: (lines: (L & { net_cents: number })[]) => OfferResult,
): Priced {
  const perks = perksOf(member)
  const pricing = applyMembership(memberInput(lines), perks)
  const offer = offerOf(withMember(lines, pricing))
  const multiplier = perks?.points_multiplier ?? 1
  return {
    member,
    pricing,
    offer,
    multiplier,
    points: offer.lines.map((line) => multipliedPoints(line.points, multiplier)),
  }
}

/** The lines with what the membership left to pay and earn, as the offer reads them. */
export function withMember<L extends MemberLineInput>(
  lines: readonly L[],
  pricing: MemberPricing,
): (L & { net_cents: number })[] {
  return lines.map((line, i) => ({
    ...line,
    net_cents: pricing.lines[i]?.net_cents ?? line.unit_price_cents * line.quantity,
    points: pricing.lines[i]?.points ?? line.points,
  }))
}

/** No offer: the lines as the membership left them. */
export const withoutOffer = (lines: readonly (MemberLineInput & { net_cents: number })[]) =>
  applyOffer(lines, null)

/** The preview's `membership`, or null without one. */
export function memberAnswer(
  member: Member | null,
  pricing: MemberPricing,
): MemberAtCheckout | null {
  if (!member) return null
  const perks = perksOf(member)
  return {
    membership_id: member.id,
    plan_name: member.plan_name,
    interval: member.interval,
    status: member.status,
    perks_apply: perks !== null,
    flag: memberFlag(member),
    bank_cents: member.bank_cents,
    discount_percent: member.perks.discount_percent,
    points_multiplier: member.perks.points_multiplier,
    allowances: member.perks.allowances.map((allowance) => {
      const left = member.allowances.find(
        (a) => a.catalogue_item_id === allowance.catalogue_item_id,
      )
      return {
        catalogue_item_id: allowance.catalogue_item_id,
        name: left?.name ?? '',
        per_cycle: allowance.quantity,
        remaining: left?.remaining ?? 0,
        used: pricing.allowances_used.get(allowance.catalogue_item_id) ?? 0,
      }
    }),
    allowance_cents: pricing.allowance_cents,
    member_discount_cents: pricing.member_discount_cents,
  }
}

/** Refuses a bank payment the membership cannot make: no bank, too little, more than is due. */
export async function checkBank(
  ex: Executor,
  patient: { id: number; practice_id: number },
  member: Member | null,
  bankCents: number,
  dueCents: number,
): Promise<void> {
  if (bankCents <= 0) return
  if (!member) {
    // A former member whose bank was spent meanwhile (another desk, a moment ago) is told so.
    const [former] = await ex
      .select({ id: memberships.id })
      .from(memberships)
      .where(
        and(
          eq(memberships.practice_id, patient.practice_id),
          eq(memberships.patient_id, patient.id),
        ),
      )
      .limit(1)
    if (former) throw conflict(VISIT_MESSAGES.bankTooLittle(0))
    throw unprocessable(VISIT_MESSAGES.noBank)
  }
  if (bankCents > member.bank_cents) throw conflict(VISIT_MESSAGES.bankTooLittle(member.bank_cents))
  if (bankCents > dueCents) throw unprocessable(VISIT_MESSAGES.bankMoreThanDue(dueCents))
}

/**
 * Writes what a recorded visit used of the membership (the caller holds the membership's lock):
 * the allowances' units taken off, the bank paid from (an entry `use` keyed by the visit), and an
 * event on the membership's timeline. Answers the bank after it.
 */
export async function spendMembership(
  tx: Transaction,
  member: Member,
  visit: { id: number },
  pricing: MemberPricing,
  bankCents: number,
  at: Date,
  userId: number,
): Promise<number> {
  // The bank's entries and the timeline are dated on the billing clock, as renewals are, so the
  // memberships report's closed months never gain an entry (they differ only once
  // `POST /dev/clock` has moved the billing clock, outside production).
  const billingAt = await billingInstant(tx, at)
  for (const [itemId, units] of pricing.allowances_used) {
    const [left] = await tx
      .update(membershipAllowances)
      .set({ remaining: sql`${membershipAllowances.remaining} - ${units}` })
      .where(
        and(
          eq(membershipAllowances.membership_id, member.id),
          eq(membershipAllowances.catalogue_item_id, itemId),
          sql`${membershipAllowances.remaining} >= ${units}`,
        ),
      )
      .returning({ remaining: membershipAllowances.remaining })
    // Read under the lock, so this holds; a failure here is a bug, never a silent overdraw.
    if (!left) throw new Error(`Allowance ${itemId} of membership ${member.id} is used up.`)
  }
  let bank = member.bank_cents
  if (bankCents > 0) {
    bank -= bankCents
    await tx.insert(membershipBankEntries).values({
      practice_id: member.practice_id,
      membership_id: member.id,
      kind: 'use',
      amount_cents: -bankCents,
      balance_after: bank,
      visit_id: visit.id,
      created_at: billingAt,
    })
    await tx.update(memberships).set({ bank_cents: bank }).where(eq(memberships.id, member.id))
  }
  const units = [...pricing.allowances_used.values()].reduce((sum, n) => sum + n, 0)
  if (units > 0 || bankCents > 0 || pricing.member_discount_cents > 0) {
    const parts = [
      units > 0 ? `${units} included treatment${units === 1 ? '' : 's'} used` : null,
      pricing.member_discount_cents > 0
        ? `${money(pricing.member_discount_cents)} off at the member price`
        : null,
      bankCents > 0 ? `${money(bankCents)} paid from the bank` : null,
    ].filter(Boolean)
    await tx.insert(membershipEvents).values({
      practice_id: member.practice_id,
      membership_id: member.id,
      kind: 'perks_used',
      amount_cents: bankCents > 0 ? bankCents : null,
      detail: `Visit ${visit.id}: ${parts.join(', ')}.`,
      user_id: userId,
      at: billingAt,
    })
  }
  return bank
}

/**
 * Puts back what an undone visit used of its membership (the caller holds the patient's lock and
 * the visit's): the allowances' units and the bank's payment (an entry `restore` keyed by the
 * visit, so a second undo cannot put it back twice). Answers the bank after it, or null when the
 * visit used no membership.
 */
export async function restoreMembership(
  tx: Transaction,
  visit: { id: number; membership_id: number | null; bank_cents: number },
  units: ReadonlyMap<number, number>,
  at: Date,
  userId: number,
): Promise<number | null> {
  if (visit.membership_id === null) return null
  const billingAt = await billingInstant(tx, at)
  const [m] = await tx
    .select({
      id: memberships.id,
      practice_id: memberships.practice_id,
      bank_cents: memberships.bank_cents,
    })
    .from(memberships)
    .where(eq(memberships.id, visit.membership_id))
    .for('update')
  if (!m) return null
  for (const [itemId, n] of units) {
    if (n <= 0) continue
    await tx
      .update(membershipAllowances)
      .set({ remaining: sql`${membershipAllowances.remaining} + ${n}` })
      .where(
        and(
          eq(membershipAllowances.membership_id, m.id),
          eq(membershipAllowances.catalogue_item_id, itemId),
        ),
      )
  }
  let bank = m.bank_cents
  if (visit.bank_cents > 0) {
    const [restored] = await tx
      .insert(membershipBankEntries)
      .values({
        practice_id: m.practice_id,
        membership_id: m.id,
        kind: 'restore',
        amount_cents: visit.bank_cents,
        balance_after: bank + visit.bank_cents,
        visit_id: visit.id,
        created_at: billingAt,
      })
      .onConflictDoNothing()
      .returning({ id: membershipBankEntries.id })
    if (restored) {
      bank += visit.bank_cents
      await tx.update(memberships).set({ bank_cents: bank }).where(eq(memberships.id, m.id))
    }
  }
  const total = [...units.values()].reduce((sum, n) => sum + n, 0)
  if (total > 0 || visit.bank_cents > 0) {
    const parts = [
      total > 0 ? `${total} included treatment${total === 1 ? '' : 's'}` : null,
      visit.bank_cents > 0 ? `${money(visit.bank_cents)} to the bank` : null,
    ].filter(Boolean)
    await tx.insert(membershipEvents).values({
      practice_id: m.practice_id,
      membership_id: m.id,
      kind: 'perks_restored',
      amount_cents: visit.bank_cents > 0 ? visit.bank_cents : null,
      detail: `Visit ${visit.id} undone: ${parts.join(' and ')} put back.`,
      user_id: userId,
      at: billingAt,
    })
  }
  return bank
}

/** The membership's bank now, for a visit's answer; null without a membership. */
export async function bankOf(ex: Executor, membershipId: number | null): Promise<number | null> {
  if (membershipId === null) return null
  const [row] = await ex
    .select({ bank_cents: memberships.bank_cents })
    .from(memberships)
    .where(eq(memberships.id, membershipId))
  return row?.bank_cents ?? null
}
