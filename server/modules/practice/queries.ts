import { asc, eq, sql } from 'drizzle-orm'
import type { Plan, PlansAnswer } from '#domain/plans.ts'
import type { PracticeSettings } from '#domain/practice-settings.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { sealJson } from '#server/db/data-key.ts'
import { coupons, nextechConnections, planColumns, plans, practices } from '#server/db/schema.ts'
import { notFound } from '#server/lib/domain-error.ts'

const couponColumns = {
  id: coupons.id,
  amount_off: coupons.amount_off,
  percent_off: coupons.percent_off,
}

/** The columns of the practice's details in Settings (the sealed Nextech settings apart). */
const detailColumns = {
  id: practices.id,
  practice_name: practices.practice_name,
  office_name: practices.office_name,
  url: practices.url,
  practice_phone: practices.practice_phone,
  practice_email: practices.practice_email,
  practice_address: practices.practice_address,
  practice_address_2: practices.practice_address_2,
  city: practices.city,
  practice_zip: practices.practice_zip,
  state: practices.state,
  country: practices.country,
  e_record: practices.e_record,
  nextech: practices.nextech,
  footer_about_url: practices.footer_about_url,
  footer_privacy_url: practices.footer_privacy_url,
  footer_support: practices.footer_support,
  image_path: practices.image_path,
}

export type DetailRow = Awaited<ReturnType<typeof readDetails>>

/** The practice's details as Settings shows them, or 404. */
export async function readDetails(db: Database, practiceId: number) {
  const [row] = await db.select(detailColumns).from(practices).where(eq(practices.id, practiceId))
  if (!row) throw notFound('Practice not found.')
  return row
}

/**
 * Saves the practice's details as checked by the wizard's rules (trimmed, empty optional fields
 * as null, the Nextech settings sealed with `dataKey`), answering the row as saved, or 404.
 */
export async function saveDetails(
  db: Database | Transaction,
  dataKey: Buffer,
  practiceId: number,
  next: PracticeSettings,
) {
  const optional = (text: string) => (text.trim() === '' ? null : text.trim())
  const [saved] = await db
    .update(practices)
    .set({
      practice_name: next.practice_name.trim(),
      office_name: optional(next.office_name),
      url: next.url.trim(),
      practice_phone: next.practice_phone,
      practice_email: next.practice_email.trim(),
      practice_address: next.practice_address.trim(),
      practice_address_2: optional(next.practice_address_2),
      city: next.city.trim(),
      practice_zip: next.practice_zip.trim().toUpperCase(),
      state: next.state,
      country: next.country,
      e_record: next.e_record,
      nextech: next.nextech ? sealJson(next.nextech, dataKey) : null,
      footer_about_url: optional(next.footer_links.about),
      footer_privacy_url: optional(next.footer_links.privacy),
      footer_support: optional(next.footer_links.support),
    })
    .where(eq(practices.id, practiceId))
    .returning(detailColumns)
  if (!saved) throw notFound('Practice not found.')
  return saved
}

/** Plan rows in the domain's terms: a yearly or a monthly interval. */
function asPlans(rows: (Omit<Plan, 'interval'> & { interval: string })[]): Plan[] {
  return rows.map((plan) => ({ ...plan, interval: plan.interval === 'year' ? 'year' : 'month' }))
}

/** The plans one can subscribe to, in the order the wizard lists them. */
export async function activePlans(db: Database): Promise<Plan[]> {
  return asPlans(
    await db
      .select(planColumns)
      .from(plans)
      .where(eq(plans.active, true))
      .orderBy(asc(plans.sort_order), asc(plans.id)),
  )
}

/** The active plans and the coupons marked public, in Stripe list shape. */
export async function readPlansAnswer(db: Database): Promise<PlansAnswer> {
  const [data, couponRows] = await Promise.all([
    activePlans(db),
    db.select(couponColumns).from(coupons).where(eq(coupons.public, true)).orderBy(asc(coupons.id)),
  ])
  return { plans: { data }, coupons: { data: couponRows } }
}

/** The coupon, public or private, whose code is `code` in any case. */
export async function couponByCode(db: Database, code: string) {
  const [row] = await db
    .select(couponColumns)
    .from(coupons)
    // Promo codes are the same in any case: 'welcome10' is WELCOME10.
    .where(sql`upper(${coupons.id}) = upper(${code})`)
    .limit(1)
  return row
}

/** The practice's billing columns: the provider's ids and what was chosen at sign-up. */
export type BillingRow = {
  stripe_customer_id: string | null
  stripe_subscription_id: string | null
  plan_id: string | null
  subscription_ehr: boolean
  subscription_months: number | null
  subscription_status: string
}

/** The practice's billing columns, or 404. */
export async function billingOf(db: Database, practiceId: number): Promise<BillingRow> {
  const [row] = await db
    .select({
      stripe_customer_id: practices.stripe_customer_id,
      stripe_subscription_id: practices.stripe_subscription_id,
      plan_id: practices.plan_id,
      subscription_ehr: practices.subscription_ehr,
      subscription_months: practices.subscription_months,
      subscription_status: practices.subscription_status,
    })
    .from(practices)
    .where(eq(practices.id, practiceId))
    .limit(1)
  if (!row) throw notFound('Practice not found.')
  return row
}

/** Mirrors on the practice row a subscription the payment provider says has ended. */
export async function markSubscriptionCancelled(db: Database, practiceId: number) {
  await db
    .update(practices)
    .set({ subscription_status: 'cancelled' })
    .where(eq(practices.id, practiceId))
}

/** Every plan, active or not: a practice keeps the plans it chose. */
export async function readAllPlans(db: Database): Promise<Plan[]> {
  return asPlans(await db.select(planColumns).from(plans))
}

/**
 * Forgets the practice's Nextech connection (its sealed tokens and status): what it said was
 * about Nextech fields that changed.
 */
export async function forgetNextechConnection(
  tx: Database | Transaction,
  practiceId: number,
): Promise<void> {
  await tx.delete(nextechConnections).where(eq(nextechConnections.practice_id, practiceId))
}
