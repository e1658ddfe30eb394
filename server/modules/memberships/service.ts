/**
 * Memberships' use cases: plans and their versions, enrolment with consent and the first charge,
 * the changes staff make (each with its preview), the card, and the answers. Billing itself
 * (renewals, retries, dunning, webhooks) is billing.ts.
 */
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import {
  type BankEntryKind,
  bankEntryDetail,
  cycleEnd,
  INTERVAL_LABELS,
  LIVE_STATUSES,
  MEMBERSHIP_AGREEMENT,
  MEMBERSHIP_MESSAGES,
  type Membership,
  type MembershipBank,
  type MembershipStatus,
  money,
  type Plan,
  type PlanInput,
  type PlanInterval,
  type Preview,
  prorated,
} from '#domain/memberships.ts'
import { can } from '#domain/permissions.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import {
  membershipAllowances,
  membershipBankEntries,
  membershipCharges,
  membershipEvents,
  membershipPlans,
  membershipPlanVersions,
  memberships,
  patients,
  paymentAccounts,
  practices,
  procedures,
  users,
  visits,
} from '#server/db/schema.ts'
import { conflict, DomainError, notAllowed, notFound } from '#server/lib/domain-error.ts'
import { createLedger } from '#server/modules/ledger/index.ts'
import { lockPatient } from '#server/modules/visits/index.ts'
import type { MemberPayments } from '#server/payments/member-gateway.ts'
import { providerCall } from '#server/payments/refusal.ts'
import {
  accountOf,
  type Billing,
  hashLinkToken,
  issuePerks,
  lockMembership,
  type MembershipRow,
  moveStatus,
  type VersionRow,
  versionOf,
  writeEvent,
} from './billing.ts'

type Executor = Database | Transaction

export type MembershipDeps = {
  db: Database
  payments: MemberPayments
  billing: Billing
  now: () => Date
}

const isUniqueViolation = (error: unknown): boolean => {
  const e = error as { code?: string; cause?: { code?: string } }
  return e?.code === '23505' || e?.cause?.code === '23505'
}

/** The plan fields a new version is made for when they change. */
const VERSIONED = [
  'price_cents',
  'interval',
  'setup_fee_cents',
  'min_cycles',
  'notice_days',
  'perks',
] as const

function planAnswer(
  plan: typeof membershipPlans.$inferSelect,
  version: VersionRow,
  activeMembers: number,
): Plan {
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    price_cents: version.price_cents,
    interval: version.interval as PlanInterval,
    setup_fee_cents: version.setup_fee_cents,
    min_cycles: version.min_cycles,
    notice_days: version.notice_days,
    perks: version.perks,
    version: version.version,
    archived: plan.archived_at !== null,
    active_members: activeMembers,
  }
}

/**
 * What a refund of the current cycle takes back from the bank: the cycle's banked value as far as
 * it is unspent. Visits spend the oldest money first, so the newest credit is the last spent: what
 * is unspent of it is at most the balance.
 */
export function takeBack(
  credit: number,
  balance: number,
): { credit: number; taken: number; stays: number } {
  const taken = Math.max(0, Math.min(credit, balance))
  return { credit, taken, stays: balance - taken }
}

/**
 * The part of a cycle's banked value that goes with a refund of part of its fee: the same share as
 * the refund is of the fee (a refund of the unused half takes back half the cycle's credit), to the
 * cent, never more than the credit.
 */
export function refundedShare(
  credit: number,
  refunded: number,
  version: { price_cents: number },
): number {
  if (credit <= 0 || refunded <= 0 || version.price_cents <= 0) return 0
  return Math.min(credit, Math.round((credit * refunded) / version.price_cents))
}

/** The sentence of "cancel now": the refund, then what becomes of the bank. */
function cancelNowSummary(refundable: number, bank: ReturnType<typeof takeBack>): string {
  const ends = `Ends now${refundable > 0 ? `, with ${money(refundable)} refunded for the unused part of the cycle` : ''}`
  if (refundable <= 0 || bank.credit <= 0)
    return `${ends}; the bank's ${money(bank.stays)} stays the patient's.`
  if (bank.taken === 0)
    return `${ends}; the refunded part's share of this cycle's banked value (${money(bank.credit)}) was already spent, so nothing is taken back from the bank.`
  const spent =
    bank.taken < bank.credit ? ` (the rest of that ${money(bank.credit)} was already spent)` : ''
  return `${ends}; ${money(bank.taken)} of this cycle's banked value (the refunded part's share) is taken back${spent}; ${money(bank.stays)} stays the patient's.`
}

export function createMembershipService(deps: MembershipDeps) {
  const { db, payments, billing } = deps
  const ledger = createLedger({ db, now: deps.now })

  async function activeCounts(ex: Executor, practiceId: number): Promise<Map<number, number>> {
    const rows = await ex
      .select({ plan_id: membershipPlanVersions.plan_id, n: count() })
      .from(memberships)
      .innerJoin(membershipPlanVersions, eq(membershipPlanVersions.id, memberships.plan_version_id))
      .where(
        and(
          eq(memberships.practice_id, practiceId),
          inArray(memberships.status, [...LIVE_STATUSES]),
        ),
      )
      .groupBy(membershipPlanVersions.plan_id)
    return new Map(rows.map((r) => [r.plan_id, Number(r.n)]))
  }

  async function planRow(ex: Executor, practiceId: number, id: number) {
    const [row] = await ex
      .select()
      .from(membershipPlans)
      .where(and(eq(membershipPlans.id, id), eq(membershipPlans.practice_id, practiceId)))
    if (!row) throw notFound(MEMBERSHIP_MESSAGES.planNotFound)
    return row
  }

  async function currentVersion(ex: Executor, plan: typeof membershipPlans.$inferSelect) {
    const [row] = await ex
      .select()
      .from(membershipPlanVersions)
      .where(
        and(
          eq(membershipPlanVersions.plan_id, plan.id),
          eq(membershipPlanVersions.version, plan.current_version),
        ),
      )
    if (!row) throw new Error(`Plan ${plan.id} has no version ${plan.current_version}.`)
    return row
  }

  async function onePlan(ex: Executor, practiceId: number, id: number): Promise<Plan> {
    const plan = await planRow(ex, practiceId, id)
    const counts = await activeCounts(ex, practiceId)
    return planAnswer(plan, await currentVersion(ex, plan), counts.get(plan.id) ?? 0)
  }

  /** Allowance items must be treatments of the practice's catalogue. */
  async function checkItems(ex: Executor, practiceId: number, input: PlanInput) {
    const ids = [
      ...new Set([
        ...input.perks.allowances.map((a) => a.catalogue_item_id),
        ...input.perks.discount_item_ids,
      ]),
    ]
    if (ids.length === 0) return
    const found = await ex
      .select({ id: procedures.id })
      .from(procedures)
      .where(and(eq(procedures.practice_id, practiceId), inArray(procedures.id, ids)))
    if (found.length !== ids.length) {
      throw new DomainError('invalid', MEMBERSHIP_MESSAGES.allowanceItem)
    }
  }

  async function refuseTakenName(ex: Executor, practiceId: number, name: string, except?: number) {
    const [taken] = await ex
      .select({ id: membershipPlans.id, name: membershipPlans.name })
      .from(membershipPlans)
      .where(
        and(
          eq(membershipPlans.practice_id, practiceId),
          isNull(membershipPlans.archived_at),
          sql`lower(btrim(${membershipPlans.name})) = lower(btrim(${name}))`,
          except ? sql`${membershipPlans.id} <> ${except}` : undefined,
        ),
      )
    if (taken) throw conflict(MEMBERSHIP_MESSAGES.nameTaken(taken.name))
  }

  const versionValues = (input: PlanInput) => ({
    price_cents: input.price_cents,
    interval: input.interval,
    setup_fee_cents: input.setup_fee_cents,
    min_cycles: input.min_cycles,
    notice_days: input.notice_days,
    perks: input.perks,
  })

  // ---- Plans -------------------------------------------------------------------------------

  async function listPlans(practiceId: number, archived: boolean): Promise<Plan[]> {
    const plans = await db
      .select()
      .from(membershipPlans)
      .where(
        and(
          eq(membershipPlans.practice_id, practiceId),
          archived
            ? sql`${membershipPlans.archived_at} is not null`
            : isNull(membershipPlans.archived_at),
        ),
      )
      .orderBy(asc(membershipPlans.name))
    if (plans.length === 0) return []
    const versions = await db
      .select()
      .from(membershipPlanVersions)
      .where(
        inArray(
          membershipPlanVersions.plan_id,
          plans.map((p) => p.id),
        ),
      )
    const counts = await activeCounts(db, practiceId)
    return plans.map((plan) => {
      const version = versions.find(
        (v) => v.plan_id === plan.id && v.version === plan.current_version,
      ) as VersionRow
      return planAnswer(plan, version, counts.get(plan.id) ?? 0)
    })
  }

  async function createPlan(user: AuthUser, input: PlanInput): Promise<Plan> {
    const at = deps.now()
    return db.transaction(async (tx) => {
      await checkItems(tx, user.practice_id, input)
      await refuseTakenName(tx, user.practice_id, input.name)
      const [plan] = await tx
        .insert(membershipPlans)
        .values({
          practice_id: user.practice_id,
          name: input.name,
          description: input.description,
          created_at: at,
        })
        .returning()
      if (!plan) throw new Error('The plan was not written.')
      await tx.insert(membershipPlanVersions).values({
        practice_id: user.practice_id,
        plan_id: plan.id,
        version: 1,
        ...versionValues(input),
        created_at: at,
      })
      await recordWithin(
        tx,
        {
          action: 'membership_plan.created',
          userId: user.id,
          practiceId: user.practice_id,
          details: { plan_id: plan.id, name: plan.name },
        },
        at,
      )
      return onePlan(tx, user.practice_id, plan.id)
    })
  }

  async function updatePlan(user: AuthUser, id: number, input: PlanInput): Promise<Plan> {
    const at = deps.now()
    return db.transaction(async (tx) => {
      const [plan] = await tx
        .select()
        .from(membershipPlans)
        .where(and(eq(membershipPlans.id, id), eq(membershipPlans.practice_id, user.practice_id)))
        .for('update')
      if (!plan) throw notFound(MEMBERSHIP_MESSAGES.planNotFound)
      await checkItems(tx, user.practice_id, input)
      await refuseTakenName(tx, user.practice_id, input.name, id)
      const current = await currentVersion(tx, plan)
      const next = versionValues(input)
      const changed = VERSIONED.some(
        (key) => JSON.stringify(current[key]) !== JSON.stringify(next[key]),
      )
      let version = plan.current_version
      if (changed) {
        version += 1
        await tx.insert(membershipPlanVersions).values({
          practice_id: user.practice_id,
          plan_id: plan.id,
          version,
          ...next,
          created_at: at,
        })
      }
      await tx
        .update(membershipPlans)
        .set({ name: input.name, description: input.description, current_version: version })
        .where(eq(membershipPlans.id, id))
      await recordWithin(
        tx,
        {
          action: 'membership_plan.updated',
          userId: user.id,
          practiceId: user.practice_id,
          details: { plan_id: id, name: input.name, version },
        },
        at,
      )
      return onePlan(tx, user.practice_id, id)
    })
  }

  async function archivePlan(user: AuthUser, id: number): Promise<Plan> {
    const at = deps.now()
    return db.transaction(async (tx) => {
      const plan = await planRow(tx, user.practice_id, id)
      if (!plan.archived_at) {
        await tx.update(membershipPlans).set({ archived_at: at }).where(eq(membershipPlans.id, id))
        await recordWithin(
          tx,
          {
            action: 'membership_plan.archived',
            userId: user.id,
            practiceId: user.practice_id,
            details: { plan_id: id, name: plan.name },
          },
          at,
        )
      }
      return onePlan(tx, user.practice_id, id)
    })
  }

  // ---- Answers -----------------------------------------------------------------------------

  async function answersOf(ex: Executor, rows: MembershipRow[]): Promise<Membership[]> {
    if (rows.length === 0) return []
    const versionIds = [
      ...new Set(
        rows.flatMap((r) => [r.plan_version_id, r.next_plan_version_id ?? r.plan_version_id]),
      ),
    ]
    const versions = await ex
      .select({ version: membershipPlanVersions, plan: membershipPlans })
      .from(membershipPlanVersions)
      .innerJoin(membershipPlans, eq(membershipPlans.id, membershipPlanVersions.plan_id))
      .where(inArray(membershipPlanVersions.id, versionIds))
    const byVersion = new Map(versions.map((v) => [v.version.id, v]))
    const ids = rows.map((r) => r.id)
    const allowances = await ex
      .select({
        membership_id: membershipAllowances.membership_id,
        catalogue_item_id: membershipAllowances.catalogue_item_id,
        remaining: membershipAllowances.remaining,
        name: procedures.name,
      })
      .from(membershipAllowances)
      .innerJoin(procedures, eq(procedures.id, membershipAllowances.catalogue_item_id))
      .where(inArray(membershipAllowances.membership_id, ids))
      .orderBy(asc(procedures.name))
    const people = await ex
      .select({ id: patients.id, first_name: patients.first_name, last_name: patients.last_name })
      .from(patients)
      .where(
        inArray(
          patients.id,
          rows.map((r) => r.patient_id),
        ),
      )
    const takers = await ex
      .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
      .from(users)
      .where(
        inArray(
          users.id,
          rows.map((r) => r.consent_taken_by ?? 0),
        ),
      )
    const counts = await activeCounts(ex, rows[0]?.practice_id ?? 0)
    return rows.map((r) => {
      const v = byVersion.get(r.plan_version_id)
      if (!v) throw new Error(`Membership ${r.id}: its plan version is missing.`)
      const next = r.next_plan_version_id ? byVersion.get(r.next_plan_version_id) : undefined
      const person = people.find((p) => p.id === r.patient_id)
      const taker = takers.find((u) => u.id === r.consent_taken_by)
      return {
        id: r.id,
        patient_id: r.patient_id,
        patient_name: person ? `${person.first_name} ${person.last_name}`.trim() : '',
        plan: planAnswer(v.plan, v.version, counts.get(v.plan.id) ?? 0),
        status: r.status as MembershipStatus,
        started_at: r.started_at.toISOString(),
        current_period_start: r.current_period_start.toISOString(),
        current_period_end: r.current_period_end.toISOString(),
        cycle: r.cycle,
        cancel_at_period_end: r.cancel_at !== null && r.status === 'active',
        cancel_at: r.cancel_at?.toISOString() ?? null,
        cancel_reason: r.cancel_reason,
        ended_at: r.ended_at?.toISOString() ?? null,
        resumes_at: r.status === 'paused' ? (r.renews_at?.toISOString() ?? null) : null,
        next_plan: next
          ? {
              id: next.plan.id,
              name: next.plan.name,
              version: next.version.version,
              price_cents: next.version.price_cents,
            }
          : null,
        bank_cents: r.bank_cents,
        allowances: allowances
          .filter((a) => a.membership_id === r.id)
          .map(({ catalogue_item_id, name, remaining }) => ({
            catalogue_item_id,
            name,
            remaining,
          })),
        next_payment_attempt_at:
          r.status === 'paused'
            ? (r.renews_at?.toISOString() ?? null)
            : (r.next_payment_attempt_at?.toISOString() ?? null),
        failed_attempts: r.failed_attempts,
        card: r.card_last4
          ? {
              brand: r.card_brand ?? '',
              last4: r.card_last4,
              exp_month: r.card_exp_month ?? 0,
              exp_year: r.card_exp_year ?? 0,
            }
          : null,
        consent: {
          text_version: r.consent_text_version,
          accepted_by_name: r.consent_accepted_by_name,
          accepted_at: r.consent_at.toISOString(),
          taken_by: taker ? `${taker.first_name} ${taker.last_name}`.trim() : null,
          method: r.consent_method,
        },
      }
    })
  }

  async function membershipRow(ex: Executor, practiceId: number, id: number) {
    const [row] = await ex
      .select()
      .from(memberships)
      .where(and(eq(memberships.id, id), eq(memberships.practice_id, practiceId)))
    if (!row) throw notFound(MEMBERSHIP_MESSAGES.membershipNotFound)
    return row
  }

  async function getMembership(practiceId: number, id: number): Promise<Membership> {
    const [answer] = await answersOf(db, [await membershipRow(db, practiceId, id)])
    return answer as Membership
  }

  async function patientMemberships(practiceId: number, patientId: number) {
    const [patient] = await db
      .select({ id: patients.id })
      .from(patients)
      .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
    if (!patient) throw notFound('This patient is not in your practice.')
    const rows = await db
      .select()
      .from(memberships)
      .where(and(eq(memberships.practice_id, practiceId), eq(memberships.patient_id, patientId)))
      .orderBy(desc(memberships.id))
    return answersOf(db, rows)
  }

  async function listMemberships(
    practiceId: number,
    filter: { status?: string | undefined; planId?: number | undefined; page: number },
  ) {
    const size = 50
    const where = and(
      eq(memberships.practice_id, practiceId),
      filter.status ? eq(memberships.status, filter.status) : undefined,
      filter.planId
        ? inArray(
            memberships.plan_version_id,
            db
              .select({ id: membershipPlanVersions.id })
              .from(membershipPlanVersions)
              .where(eq(membershipPlanVersions.plan_id, filter.planId)),
          )
        : undefined,
    )
    const [total] = await db.select({ n: count() }).from(memberships).where(where)
    const rows = await db
      .select()
      .from(memberships)
      .where(where)
      .orderBy(desc(memberships.id))
      .limit(size)
      .offset((filter.page - 1) * size)
    return { data: await answersOf(db, rows), page: filter.page, total: Number(total?.n ?? 0) }
  }

  async function events(practiceId: number, id: number) {
    await membershipRow(db, practiceId, id)
    const rows = await db
      .select()
      .from(membershipEvents)
      .where(eq(membershipEvents.membership_id, id))
      .orderBy(desc(membershipEvents.id))
      .limit(500)
    return rows.map((r) => ({
      kind: r.kind as never,
      amount_cents: r.amount_cents,
      at: r.at.toISOString(),
      detail: r.detail,
    }))
  }

  /**
   * The membership's bank: every entry newest first, each with the balance it left and its
   * sentence, and the balance now (the membership's, which the last entry's balance equals).
   */
  async function bank(practiceId: number, id: number): Promise<MembershipBank> {
    const m = await membershipRow(db, practiceId, id)
    const rows = await db
      .select({
        entry: membershipBankEntries,
        visit_at: visits.created_at,
        visit_total: visits.total_cents,
      })
      .from(membershipBankEntries)
      .leftJoin(
        visits,
        and(
          eq(visits.id, membershipBankEntries.visit_id),
          eq(visits.practice_id, membershipBankEntries.practice_id),
        ),
      )
      .where(
        and(
          eq(membershipBankEntries.membership_id, m.id),
          eq(membershipBankEntries.practice_id, practiceId),
        ),
      )
      // In the order they were written, which is the order of the running balance (a billing
      // clock moved forward can stamp a credit later than a visit written after it).
      .orderBy(desc(membershipBankEntries.id))
    return {
      data: rows.map(({ entry, visit_at, visit_total }) => {
        const kind = entry.kind as BankEntryKind
        return {
          id: entry.id,
          kind,
          amount_cents: entry.amount_cents,
          balance_after_cents: entry.balance_after,
          cycle: entry.cycle,
          visit_id: entry.visit_id,
          at: entry.created_at.toISOString(),
          detail: bankEntryDetail({
            kind,
            cycle: entry.cycle,
            visit:
              visit_at && visit_total !== null ? { at: visit_at, total_cents: visit_total } : null,
          }),
        }
      }),
      bank_cents: m.bank_cents,
    }
  }

  // ---- Payments account --------------------------------------------------------------------

  async function paymentAccount(practiceId: number) {
    const [row] = await db
      .select()
      .from(paymentAccounts)
      .where(eq(paymentAccounts.practice_id, practiceId))
    return row ?? null
  }

  async function connect(user: AuthUser) {
    const existing = await paymentAccount(user.practice_id)
    if (existing) return existing
    const { accountId } = await providerCall(() =>
      payments.connectAccount({ email: user.email, idempotencyKey: `connect_${user.practice_id}` }),
    )
    const at = deps.now()
    await db.transaction(async (tx) => {
      const inserted = await tx
        .insert(paymentAccounts)
        .values({
          practice_id: user.practice_id,
          provider: payments.mode,
          account_id: accountId,
          connected_by: user.id,
          connected_at: at,
        })
        .onConflictDoNothing()
        .returning()
      if (inserted.length > 0) {
        await recordWithin(
          tx,
          {
            action: 'payments.connected',
            userId: user.id,
            practiceId: user.practice_id,
            details: { account_id: accountId },
          },
          at,
        )
      }
    })
    return paymentAccount(user.practice_id)
  }

  // ---- Enrolment ---------------------------------------------------------------------------

  async function enrol(
    user: AuthUser,
    patientId: number,
    input: {
      plan_id: number
      payment_method_token: string
      consent: { text_version: string; accepted_by_name: string }
      idempotencyKey: string
    },
    method: 'desk' | 'wallet' = 'desk',
  ): Promise<{ membership: Membership; replay: boolean }> {
    const practiceId = user.practice_id
    const [earlier] = await db
      .select()
      .from(memberships)
      .where(
        and(
          eq(memberships.practice_id, practiceId),
          eq(memberships.idempotency_key, input.idempotencyKey),
        ),
      )
    if (earlier) {
      if (earlier.patient_id !== patientId) throw conflict(MEMBERSHIP_MESSAGES.keyReused)
      const [answer] = await answersOf(db, [earlier])
      return { membership: answer as Membership, replay: true }
    }
    if (input.consent.text_version !== MEMBERSHIP_AGREEMENT.version) {
      throw conflict(MEMBERSHIP_MESSAGES.consentOutdated)
    }
    const [patient] = await db
      .select({
        id: patients.id,
        email: patients.email,
        first_name: patients.first_name,
        last_name: patients.last_name,
        archived_at: patients.archived_at,
      })
      .from(patients)
      .where(and(eq(patients.id, patientId), eq(patients.practice_id, practiceId)))
    if (!patient) throw notFound('This patient is not in your practice.')
    if (patient.archived_at) throw conflict(MEMBERSHIP_MESSAGES.archivedPatient)
    const plan = await planRow(db, practiceId, input.plan_id)
    if (plan.archived_at) throw conflict(MEMBERSHIP_MESSAGES.planArchived)
    const version = await currentVersion(db, plan)
    const accountId = await accountOf(db, practiceId)
    if (!accountId) throw conflict(MEMBERSHIP_MESSAGES.notConnected)
    const [live] = await db
      .select({ id: memberships.id })
      .from(memberships)
      .where(
        and(eq(memberships.patient_id, patientId), inArray(memberships.status, [...LIVE_STATUSES])),
      )
    if (live) throw conflict(MEMBERSHIP_MESSAGES.alreadyMember)
    const key = `enrol_${practiceId}_${input.idempotencyKey}`
    const customer = await providerCall(() =>
      payments.createCustomer({
        accountId,
        token: input.payment_method_token,
        name: `${patient.first_name} ${patient.last_name}`.trim(),
        email: patient.email,
        idempotencyKey: `${key}_customer`,
      }),
    )
    const amount = version.setup_fee_cents + version.price_cents
    const chargeKey = `${key}_first`
    // The first charge; declined, nothing is created (the card's sentence answers 402).
    const charged = await providerCall(() =>
      payments.charge({
        accountId,
        customerId: customer.customerId,
        amountCents: amount,
        description: `${plan.name}: first payment`,
        metadata: { charge_key: chargeKey, patient_id: String(patientId) },
        idempotencyKey: chargeKey,
      }),
    )
    const at = await billing.clock.now()
    try {
      const id = await db.transaction(async (tx) => {
        const locked = await lockPatient(tx, practiceId, patientId)
        const end = cycleEnd(at, version.interval as PlanInterval)
        const [m] = await tx
          .insert(memberships)
          .values({
            practice_id: practiceId,
            patient_id: patientId,
            plan_version_id: version.id,
            status: 'active',
            started_at: at,
            cycle: 1,
            current_period_start: at,
            current_period_end: end,
            renews_at: end,
            next_payment_attempt_at: end,
            customer_id: customer.customerId,
            card_brand: customer.card.brand,
            card_last4: customer.card.last4,
            card_exp_month: customer.card.expMonth,
            card_exp_year: customer.card.expYear,
            consent_text_version: input.consent.text_version,
            consent_accepted_by_name: input.consent.accepted_by_name,
            consent_at: at,
            consent_taken_by: method === 'desk' ? user.id : null,
            consent_method: method,
            idempotency_key: input.idempotencyKey,
            created_at: at,
          })
          .returning()
        if (!m) throw new Error('The membership was not written.')
        const [charge] = await tx
          .insert(membershipCharges)
          .values({
            practice_id: practiceId,
            membership_id: m.id,
            cycle: 1,
            purpose: 'cycle',
            attempt: 1,
            amount_cents: amount,
            status: 'succeeded',
            idempotency_key: chargeKey,
            gateway_ref: charged.chargeId,
            created_by: user.id,
            created_at: at,
            settled_at: at,
          })
          .returning()
        await writeEvent(
          tx,
          m,
          'enrolled',
          `Joined ${plan.name} (version ${version.version}); ${input.consent.accepted_by_name} accepted the agreement of ${input.consent.text_version}, automatic renewal included.`,
          at,
          { userId: user.id },
        )
        await writeEvent(
          tx,
          m,
          'charged',
          `Charged ${money(amount)} for cycle 1${version.setup_fee_cents ? ` (setup fee ${money(version.setup_fee_cents)} included)` : ''}.`,
          at,
          { amount, userId: user.id },
        )
        const perks = await issuePerks(
          tx,
          m,
          version,
          1,
          { start: at, end },
          charge?.id ?? null,
          at,
        )
        if (perks.bank !== m.bank_cents) {
          await tx
            .update(memberships)
            .set({ bank_cents: perks.bank })
            .where(eq(memberships.id, m.id))
        }
        if (version.perks.join_bonus_points > 0) {
          await ledger.locked(tx, { practiceId, patientId, balance: locked.points }).credit({
            userId: user.id,
            kind: 'bonus',
            points: version.perks.join_bonus_points,
            sourceType: 'membership',
            sourceId: m.id,
            reason: `Joined ${plan.name}`,
            idempotencyKey: `membership_join_${m.id}`,
          })
        }
        await recordWithin(
          tx,
          {
            action: 'membership.enrolled',
            userId: user.id,
            practiceId,
            details: {
              patient_id: patientId,
              membership_id: m.id,
              plan: plan.name,
              amount_cents: amount,
            },
          },
          at,
        )
        return m.id
      })
      return { membership: await getMembership(practiceId, id), replay: false }
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      // Two enrolments at once: one with the same key answers the first; another membership
      // started meanwhile gets this charge back.
      const [same] = await db
        .select()
        .from(memberships)
        .where(
          and(
            eq(memberships.practice_id, practiceId),
            eq(memberships.idempotency_key, input.idempotencyKey),
          ),
        )
      if (same) return { membership: (await answersOf(db, [same]))[0] as Membership, replay: true }
      await payments.refund({
        accountId,
        chargeId: charged.chargeId,
        amountCents: amount,
        idempotencyKey: `${chargeKey}_refund`,
      })
      throw conflict(MEMBERSHIP_MESSAGES.alreadyMember)
    }
  }

  // ---- Changes -----------------------------------------------------------------------------

  /** The membership, its version, and whether the chart takes `event` in its status. */
  async function forChange(practiceId: number, id: number) {
    const m = await membershipRow(db, practiceId, id)
    const version = await versionOf(db, m.plan_version_id)
    return { m, version }
  }

  const dateOf = (d: Date) => d.toISOString().slice(0, 10)

  /** The charge that paid the membership's current cycle (refunds go against it). */
  async function paidCharge(m: MembershipRow) {
    const [paid] = await db
      .select()
      .from(membershipCharges)
      .where(
        and(
          eq(membershipCharges.membership_id, m.id),
          eq(membershipCharges.cycle, m.cycle),
          eq(membershipCharges.purpose, 'cycle'),
          eq(membershipCharges.status, 'succeeded'),
        ),
      )
    return paid
  }

  async function audit(
    tx: Transaction,
    user: AuthUser,
    m: MembershipRow,
    change: string,
    at: Date,
  ) {
    await recordWithin(
      tx,
      {
        action: 'membership.changed',
        userId: user.id,
        practiceId: user.practice_id,
        details: { patient_id: m.patient_id, membership_id: m.id, change },
      },
      at,
    )
  }

  /** A staff member as the one who changes a membership. */
  const staffActor = (user: AuthUser): ChangeActor => ({
    practiceId: user.practice_id,
    userId: user.id,
    record: (tx, m, change, at) => audit(tx, user, m, change, at),
  })

  async function pause(user: AuthUser, id: number, cycles: number, preview: boolean) {
    return pauseAs(staffActor(user), id, cycles, preview)
  }

  async function pauseAs(actor: ChangeActor, id: number, cycles: number, preview: boolean) {
    const user = { practice_id: actor.practiceId, id: actor.userId }
    const { m, version } = await forChange(user.practice_id, id)
    moveStatus(m.status, 'pause', 'be paused')
    const resumes = cycleEnd(m.current_period_end, version.interval as PlanInterval, cycles)
    const summary = `Paused now for ${cycles} cycle${cycles === 1 ? '' : 's'}: no charges and no perks; billing resumes on ${dateOf(resumes)} at ${money(version.price_cents)}.`
    if (preview)
      return {
        preview: {
          amount_cents: 0,
          effective_at: (await billing.clock.now()).toISOString(),
          summary,
        },
      }
    const at = await billing.clock.now()
    await db.transaction(async (tx) => {
      const locked = (await lockMembership(tx, m.id)) as MembershipRow
      const status = moveStatus(locked.status, 'pause', 'be paused')
      await tx
        .update(memberships)
        .set({
          status,
          paused_cycles: cycles,
          renews_at: resumes,
          next_payment_attempt_at: resumes,
        })
        .where(eq(memberships.id, m.id))
      await writeEvent(tx, m, 'paused', summary, at, { userId: user.id })
      await actor.record(tx, m, summary, at)
    })
    return getMembership(user.practice_id, id)
  }

  async function resume(user: AuthUser, id: number, preview: boolean) {
    const { m, version } = await forChange(user.practice_id, id)
    moveStatus(m.status, 'resume', 'be resumed')
    const at = await billing.clock.now()
    // Time already paid for is not charged again: billing starts at the paid period's end.
    const renews = m.current_period_end > at ? m.current_period_end : at
    const now = renews <= at
    const summary = now
      ? `Resumed now: ${money(version.price_cents)} is charged today and the perks start again.`
      : `Resumed now: the next charge of ${money(version.price_cents)} is on ${dateOf(renews)}.`
    if (preview) {
      return {
        preview: {
          amount_cents: now ? version.price_cents : 0,
          effective_at: at.toISOString(),
          summary,
        },
      }
    }
    await db.transaction(async (tx) => {
      const locked = (await lockMembership(tx, m.id)) as MembershipRow
      const status = moveStatus(locked.status, 'resume', 'be resumed')
      await tx
        .update(memberships)
        .set({ status, paused_cycles: 0, renews_at: renews, next_payment_attempt_at: renews })
        .where(eq(memberships.id, m.id))
      await writeEvent(tx, m, 'resumed', summary, at, { userId: user.id })
      await audit(tx, user, m, summary, at)
    })
    if (now) await billing.attempt(m.id, { wait: true, userId: user.id })
    return getMembership(user.practice_id, id)
  }

  /** The first cycle end on which a cancellation may take effect: minimum term and notice kept. */
  function earliestEnd(m: MembershipRow, version: VersionRow, at: Date): Date {
    const minimum = cycleEnd(m.started_at, version.interval as PlanInterval, version.min_cycles)
    let end = m.current_period_end
    for (let i = 0; i < 100; i++) {
      const noticeOk = end.getTime() - at.getTime() >= version.notice_days * 86_400_000
      if (end >= minimum && noticeOk) return end
      end = cycleEnd(end, version.interval as PlanInterval)
    }
    return end
  }

  /** The banked value the membership's current cycle paid in (0: none). */
  async function cycleCredit(ex: Executor, m: MembershipRow): Promise<number> {
    const [credit] = await ex
      .select({ amount: membershipBankEntries.amount_cents })
      .from(membershipBankEntries)
      .where(
        and(
          eq(membershipBankEntries.membership_id, m.id),
          eq(membershipBankEntries.kind, 'credit'),
          eq(membershipBankEntries.cycle, m.cycle),
        ),
      )
    const [refunded] = await ex
      .select({ n: count() })
      .from(membershipBankEntries)
      .where(
        and(
          eq(membershipBankEntries.membership_id, m.id),
          eq(membershipBankEntries.kind, 'refund'),
          eq(membershipBankEntries.cycle, m.cycle),
        ),
      )
    // A cycle's banked value is taken back once.
    return Number(refunded?.n ?? 0) > 0 ? 0 : (credit?.amount ?? 0)
  }

  async function cancel(
    user: AuthUser,
    id: number,
    input: { at: 'period_end' | 'now'; refund: boolean; requested_by?: 'patient' | 'staff' },
    preview: boolean,
  ) {
    if (input.at === 'now' && !can(user.access_rights, 'memberships.cancelNow')) {
      throw notAllowed(MEMBERSHIP_MESSAGES.cancelNowNeedsManager)
    }
    return cancelAs(staffActor(user), id, input, preview)
  }

  /**
   * Cancels for `actor`: at the end of the term (the first cycle end the minimum term and the
   * notice period allow), or now (whoever calls it checked that the actor may end it now).
   */
  async function cancelAs(
    actor: ChangeActor,
    id: number,
    input: { at: 'period_end' | 'now'; refund: boolean; requested_by?: 'patient' | 'staff' },
    preview: boolean,
  ) {
    const user = { practice_id: actor.practiceId, id: actor.userId }
    const reason = input.requested_by ?? 'patient'
    const { m, version } = await forChange(user.practice_id, id)
    const at = await billing.clock.now()
    if (input.at === 'period_end') {
      moveStatus(m.status, 'cancel.at_period_end', 'be cancelled at the end of the term')
      const end = earliestEnd(m, version, at)
      const renewals = []
      for (let d = m.current_period_end; d < end; d = cycleEnd(d, version.interval as PlanInterval))
        renewals.push(d)
      const summary = `Ends on ${dateOf(end)}${renewals.length ? ` after ${renewals.length} more payment${renewals.length === 1 ? '' : 's'} of ${money(version.price_cents)} (minimum term and notice period)` : ''}; nothing more is charged after that.`
      if (preview) return { preview: { amount_cents: 0, effective_at: end.toISOString(), summary } }
      await db.transaction(async (tx) => {
        const locked = (await lockMembership(tx, m.id)) as MembershipRow
        moveStatus(locked.status, 'cancel.at_period_end', 'be cancelled at the end of the term')
        await tx
          .update(memberships)
          .set({ cancel_at: end, cancel_reason: reason })
          .where(eq(memberships.id, m.id))
        await writeEvent(tx, m, 'cancel_scheduled', summary, at, { userId: user.id })
        await actor.record(tx, m, `cancelled at the end of the term (${dateOf(end)})`, at)
      })
      return getMembership(user.practice_id, id)
    }
    moveStatus(m.status, 'cancel.now', 'be cancelled')
    const paid = await paidCharge(m)
    const refundable =
      input.refund && paid && (m.status === 'active' || m.status === 'paused')
        ? Math.min(
            prorated(version.price_cents, m.current_period_start, m.current_period_end, at),
            paid.amount_cents,
          )
        : 0
    // A refund of the cycle takes its banked value back, as far as it is unspent; without a
    // refund the bank stays the patient's.
    const credit = refundable > 0 ? refundedShare(await cycleCredit(db, m), refundable, version) : 0
    if (preview) {
      const summary = cancelNowSummary(refundable, takeBack(credit, m.bank_cents))
      return { preview: { amount_cents: -refundable, effective_at: at.toISOString(), summary } }
    }
    const accountId = await accountOf(db, user.practice_id)
    if (refundable > 0 && paid?.gateway_ref && accountId) {
      await providerCall(() =>
        payments.refund({
          accountId,
          chargeId: paid.gateway_ref as string,
          amountCents: refundable,
          idempotencyKey: `refund_${m.id}_c${m.cycle}`,
        }),
      )
    }
    await db.transaction(async (tx) => {
      const locked = (await lockMembership(tx, m.id)) as MembershipRow
      const status = moveStatus(locked.status, 'cancel.now', 'be cancelled')
      // The bank as it is under the lock: a visit may have spent from it since the preview.
      const bank = takeBack(
        refundable > 0 ? refundedShare(await cycleCredit(tx, locked), refundable, version) : 0,
        locked.bank_cents,
      )
      const summary = cancelNowSummary(refundable, bank)
      await tx
        .update(memberships)
        .set({
          status,
          bank_cents: bank.stays,
          ended_at: at,
          cancel_at: at,
          cancel_reason:
            locked.status === 'past_due' || locked.status === 'unpaid' ? 'failed_payment' : reason,
          next_payment_attempt_at: null,
          renews_at: null,
          card_link_hash: null,
        })
        .where(eq(memberships.id, m.id))
      if (refundable > 0) {
        await tx
          .insert(membershipCharges)
          .values({
            practice_id: m.practice_id,
            membership_id: m.id,
            cycle: m.cycle,
            purpose: 'refund',
            attempt: 1,
            amount_cents: -refundable,
            status: 'succeeded',
            idempotency_key: `refund_${m.id}_c${m.cycle}`,
            created_by: user.id,
            created_at: at,
            settled_at: at,
          })
          .onConflictDoNothing()
        if (bank.taken > 0) {
          await tx.insert(membershipBankEntries).values({
            practice_id: m.practice_id,
            membership_id: m.id,
            kind: 'refund',
            cycle: m.cycle,
            amount_cents: -bank.taken,
            balance_after: bank.stays,
            created_at: at,
          })
        }
        await writeEvent(
          tx,
          m,
          'refunded',
          `Refunded ${money(refundable)} for the unused part of cycle ${m.cycle}.${bank.taken > 0 ? ` ${money(bank.taken)} of its banked value was taken back from the bank.` : ''}`,
          at,
          {
            amount: -refundable,
            userId: user.id,
          },
        )
      }
      await writeEvent(tx, m, 'cancelled', summary, at, { userId: user.id })
      await actor.record(
        tx,
        m,
        `ended now${refundable ? ` with ${money(refundable)} refunded` : ''}${bank.taken ? `, ${money(bank.taken)} taken back from the bank` : ''}`,
        at,
      )
    })
    return getMembership(user.practice_id, id)
  }

  async function undoCancel(user: AuthUser, id: number) {
    const { m } = await forChange(user.practice_id, id)
    if (!m.cancel_at || m.status !== 'active') throw conflict('The membership is not set to end.')
    const at = await billing.clock.now()
    await db.transaction(async (tx) => {
      const locked = (await lockMembership(tx, m.id)) as MembershipRow
      moveStatus(locked.status, 'cancel.undo', 'keep renewing')
      await tx
        .update(memberships)
        .set({ cancel_at: null, cancel_reason: null })
        .where(eq(memberships.id, m.id))
      await writeEvent(
        tx,
        m,
        'cancel_undone',
        'Keeps renewing: the cancellation was taken back.',
        at,
        { userId: user.id },
      )
      await audit(tx, user, m, 'took back the cancellation', at)
    })
    return getMembership(user.practice_id, id)
  }

  async function changePlan(
    user: AuthUser,
    id: number,
    input: { plan_id: number; at: 'now' | 'period_end' },
    preview: boolean,
  ) {
    const { m, version } = await forChange(user.practice_id, id)
    moveStatus(m.status, 'plan.change', 'change plan')
    const plan = await planRow(db, user.practice_id, input.plan_id)
    if (plan.archived_at) throw conflict(MEMBERSHIP_MESSAGES.planArchived)
    const target = await currentVersion(db, plan)
    if (target.id === m.plan_version_id) throw conflict(MEMBERSHIP_MESSAGES.samePlan)
    const at = await billing.clock.now()
    if (input.at === 'period_end') {
      const summary = `Moves to ${plan.name} at the next renewal on ${dateOf(m.current_period_end)}: ${money(target.price_cents)} ${INTERVAL_LABELS[target.interval as PlanInterval].toLowerCase()} from then.`
      if (preview)
        return {
          preview: { amount_cents: 0, effective_at: m.current_period_end.toISOString(), summary },
        }
      await db.transaction(async (tx) => {
        const locked = (await lockMembership(tx, m.id)) as MembershipRow
        moveStatus(locked.status, 'plan.change', 'change plan')
        await tx
          .update(memberships)
          .set({ next_plan_version_id: target.id })
          .where(eq(memberships.id, m.id))
        await writeEvent(tx, m, 'plan_change_scheduled', summary, at, { userId: user.id })
        await audit(tx, user, m, summary, at)
      })
      return getMembership(user.practice_id, id)
    }
    if (target.interval !== version.interval) {
      throw conflict(
        'A plan with another cadence starts at the next renewal: choose "at the next renewal".',
      )
    }
    const difference = prorated(
      target.price_cents - version.price_cents,
      m.current_period_start,
      m.current_period_end,
      at,
    )
    const summary =
      difference > 0
        ? `Moves to ${plan.name} now: ${money(difference)} is charged today for the rest of this cycle.`
        : difference < 0
          ? `Moves to ${plan.name} now: ${money(-difference)} is refunded today for the rest of this cycle.`
          : `Moves to ${plan.name} now; nothing is charged today.`
    if (preview)
      return { preview: { amount_cents: difference, effective_at: at.toISOString(), summary } }
    const accountId = await accountOf(db, user.practice_id)
    if (!accountId) throw conflict(MEMBERSHIP_MESSAGES.notConnected)
    const [done] = await db
      .select({ n: count() })
      .from(membershipCharges)
      .where(
        and(eq(membershipCharges.membership_id, m.id), eq(membershipCharges.purpose, 'proration')),
      )
    const key = `prorate_${m.id}_c${m.cycle}_n${Number(done?.n ?? 0) + 1}`
    let ref: string | null = null
    if (difference > 0) {
      ref = (
        await providerCall(() =>
          payments.charge({
            accountId,
            customerId: m.customer_id,
            amountCents: difference,
            description: `Change to ${plan.name}`,
            metadata: { charge_key: key, membership_id: String(m.id) },
            idempotencyKey: key,
          }),
        )
      ).chargeId
    } else if (difference < 0) {
      const paid = await paidCharge(m)
      if (paid?.gateway_ref) {
        ref = (
          await providerCall(() =>
            payments.refund({
              accountId,
              chargeId: paid.gateway_ref as string,
              amountCents: -difference,
              idempotencyKey: key,
            }),
          )
        ).refundId
      }
    }
    await db.transaction(async (tx) => {
      const locked = (await lockMembership(tx, m.id)) as MembershipRow
      moveStatus(locked.status, 'plan.change', 'change plan')
      await tx
        .insert(membershipCharges)
        .values({
          practice_id: m.practice_id,
          membership_id: m.id,
          cycle: m.cycle,
          purpose: 'proration',
          attempt: Number(done?.n ?? 0) + 1,
          amount_cents: difference,
          status: 'succeeded',
          idempotency_key: key,
          gateway_ref: ref,
          created_by: user.id,
          created_at: at,
          settled_at: at,
        })
        .onConflictDoNothing()
      // Units already used this cycle count against the new plan's allowances.
      const used = new Map(
        version.perks.allowances.map((a) => [a.catalogue_item_id, a.quantity] as const),
      )
      const current = await tx
        .select()
        .from(membershipAllowances)
        .where(eq(membershipAllowances.membership_id, m.id))
      for (const row of current)
        used.set(row.catalogue_item_id, (used.get(row.catalogue_item_id) ?? 0) - row.remaining)
      await tx.delete(membershipAllowances).where(eq(membershipAllowances.membership_id, m.id))
      for (const allowance of target.perks.allowances) {
        const remaining = Math.max(
          0,
          allowance.quantity - Math.max(0, used.get(allowance.catalogue_item_id) ?? 0),
        )
        await tx.insert(membershipAllowances).values({
          membership_id: m.id,
          catalogue_item_id: allowance.catalogue_item_id,
          practice_id: m.practice_id,
          remaining,
        })
      }
      await tx
        .update(memberships)
        .set({ plan_version_id: target.id, next_plan_version_id: null })
        .where(eq(memberships.id, m.id))
      await writeEvent(tx, m, 'plan_changed', summary, at, {
        amount: difference || null,
        userId: user.id,
      })
      await audit(tx, user, m, summary, at)
    })
    return getMembership(user.practice_id, id)
  }

  async function amountDue(m: MembershipRow): Promise<number> {
    return (await versionOf(db, m.next_plan_version_id ?? m.plan_version_id)).price_cents
  }

  async function retryPayment(user: AuthUser, id: number, preview: boolean) {
    const m = await membershipRow(db, user.practice_id, id)
    if (m.status !== 'past_due' && m.status !== 'unpaid')
      throw conflict(MEMBERSHIP_MESSAGES.nothingDue)
    const amount = await amountDue(m)
    const at = await billing.clock.now()
    if (preview) {
      return {
        preview: {
          amount_cents: amount,
          effective_at: at.toISOString(),
          summary: `Charges ${money(amount)} to the card ending ${m.card_last4} now for cycle ${m.cycle + 1}.`,
        },
      }
    }
    const outcome = await billing.attempt(m.id, { wait: true, userId: user.id })
    if (outcome.kind === 'failed') {
      throw new DomainError('payment-declined', outcome.message, { code: 'card_declined' })
    }
    return getMembership(user.practice_id, id)
  }

  /** Saves a new card; a membership that owes a cycle is charged at once. */
  async function updateCard(
    practiceId: number,
    id: number,
    token: string,
    userId: number | null,
  ): Promise<{ m: MembershipRow; charged: 'charged' | 'failed' | 'none'; message: string | null }> {
    const m = await membershipRow(db, practiceId, id)
    if (m.status === 'cancelled' || m.status === 'ended') {
      throw conflict(`A membership that is ${m.status} cannot change its card.`)
    }
    const accountId = await accountOf(db, practiceId)
    if (!accountId) throw conflict(MEMBERSHIP_MESSAGES.notConnected)
    const card = await providerCall(() =>
      payments.updateCard({
        accountId,
        customerId: m.customer_id,
        token,
        idempotencyKey: `card_${m.id}_${token}`,
      }),
    )
    const at = await billing.clock.now()
    await db.transaction(async (tx) => {
      const locked = (await lockMembership(tx, m.id)) as MembershipRow
      moveStatus(locked.status, 'card.update', 'change its card')
      await tx
        .update(memberships)
        .set({
          card_brand: card.brand,
          card_last4: card.last4,
          card_exp_month: card.expMonth,
          card_exp_year: card.expYear,
          expiry_notice_for: null,
        })
        .where(eq(memberships.id, m.id))
      await writeEvent(
        tx,
        m,
        'card_updated',
        `The card is now ${card.brand} ending ${card.last4} (expires ${String(card.expMonth).padStart(2, '0')}/${card.expYear})${userId ? '' : ', updated by the patient from the link'}.`,
        at,
        { userId },
      )
    })
    if (m.status === 'past_due' || m.status === 'unpaid') {
      const outcome = await billing.attempt(m.id, { wait: true, userId })
      const after = await membershipRow(db, practiceId, id)
      if (outcome.kind === 'failed')
        return { m: after, charged: 'failed', message: outcome.message }
      return { m: after, charged: outcome.kind === 'charged' ? 'charged' : 'none', message: null }
    }
    return { m: await membershipRow(db, practiceId, id), charged: 'none', message: null }
  }

  async function cardByStaff(user: AuthUser, id: number, token: string) {
    const result = await updateCard(user.practice_id, id, token, user.id)
    await db.transaction(async (tx) =>
      audit(tx, user, result.m, `card changed to one ending ${result.m.card_last4}`, deps.now()),
    )
    if (result.charged === 'failed') {
      throw new DomainError('payment-declined', result.message ?? 'Your card was declined.', {
        code: 'card_declined',
      })
    }
    return getMembership(user.practice_id, id)
  }

  // ---- The patient's card-update link ------------------------------------------------------

  async function byLink(token: string) {
    const [row] = await db
      .select({
        m: memberships,
        practice_name: practices.practice_name,
        first_name: patients.first_name,
      })
      .from(memberships)
      .innerJoin(patients, eq(patients.id, memberships.patient_id))
      .innerJoin(practices, eq(practices.id, memberships.practice_id))
      .where(eq(memberships.card_link_hash, hashLinkToken(token)))
    if (!row) throw notFound(MEMBERSHIP_MESSAGES.linkInvalid)
    return row
  }

  async function cardLink(token: string) {
    const row = await byLink(token)
    const version = await versionOf(db, row.m.next_plan_version_id ?? row.m.plan_version_id)
    const [plan] = await db
      .select({ name: membershipPlans.name })
      .from(membershipPlans)
      .where(eq(membershipPlans.id, version.plan_id))
    const owes = row.m.status === 'past_due' || row.m.status === 'unpaid'
    return {
      practice_name: row.practice_name,
      first_name: row.first_name,
      plan_name: plan?.name ?? '',
      status: row.m.status as MembershipStatus,
      amount_due_cents: owes ? version.price_cents : 0,
      card: row.m.card_last4
        ? {
            brand: row.m.card_brand ?? '',
            last4: row.m.card_last4,
            exp_month: row.m.card_exp_month ?? 0,
            exp_year: row.m.card_exp_year ?? 0,
          }
        : null,
    }
  }

  async function cardFromLink(token: string, paymentToken: string) {
    const row = await byLink(token)
    const result = await updateCard(row.m.practice_id, row.m.id, paymentToken, null)
    const status = result.m.status as MembershipStatus
    const message =
      result.charged === 'charged'
        ? 'Thank you: your card is updated and your membership is paid.'
        : result.charged === 'failed'
          ? `Your card is saved, but the payment was declined: ${result.message ?? ''}`.trim()
          : 'Thank you: your card is updated.'
    return { status, charged: result.charged === 'charged', message }
  }

  /**
   * The first cycle end on which a cancellation asked at `at` may take effect (minimum term and
   * notice period kept), for the patient's wallet to say before it is asked.
   */
  async function cancelEffectiveAt(practiceId: number, id: number, at: Date): Promise<Date> {
    const { m, version } = await forChange(practiceId, id)
    return earliestEnd(m, version, at)
  }

  return {
    listPlans,
    getPlan: (practiceId: number, id: number) => onePlan(db, practiceId, id),
    createPlan,
    updatePlan,
    archivePlan,
    getMembership,
    patientMemberships,
    listMemberships,
    events,
    bank,
    paymentAccount,
    connect,
    enrol,
    pause,
    pauseAs,
    resume,
    cancel,
    cancelAs,
    cancelEffectiveAt,
    undoCancel,
    changePlan,
    retryPayment,
    cardByStaff,
    /** A new card saved for the membership's patient (no staff member): the wallet's card update. */
    cardByPatient: (practiceId: number, id: number, token: string) =>
      updateCard(practiceId, id, token, null),
    cardLink,
    cardFromLink,
  }
}

export type MembershipService = ReturnType<typeof createMembershipService>

/**
 * Who changes a membership: a staff member (`userId`), or the patient from the wallet (`userId`
 * null); `record` writes the change to the audit trail in the change's transaction.
 */
export type ChangeActor = {
  practiceId: number
  userId: number | null
  record: (tx: Transaction, m: MembershipRow, change: string, at: Date) => Promise<void>
}
export type { Preview }
