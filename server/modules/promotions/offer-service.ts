import { and, count, desc, eq } from 'drizzle-orm'
import { OFFER_MESSAGES, type OfferAnswer } from '#domain/offers.ts'
import { PROMOTION_MESSAGES, promotionStatus } from '#domain/promotions.ts'
import type { ServerContext } from '#server/context.ts'
import {
  patientPromotions,
  patients,
  practices,
  promotionSends,
  promotions,
} from '#server/db/schema.ts'
import { notFound } from '#server/lib/domain-error.ts'
import { claimPromotion, offerValueText } from './service.ts'

// Offer tokens are base64url; anything else cannot match and is not looked up.
const OFFER_TOKEN = /^[\w-]{16,128}$/

type OfferContext = Pick<ServerContext, 'db' | 'now'>

/** The send a patient's personal offer link names, with its offer, practice and patient. */
async function sendOf(ctx: OfferContext, token: string) {
  if (!OFFER_TOKEN.test(token)) throw notFound(OFFER_MESSAGES.notFound)
  const [row] = await ctx.db
    .select({
      send: promotionSends,
      promotion: promotions,
      practice: { id: practices.id, name: practices.practice_name, logo: practices.image_path },
      patient: { first_name: patients.first_name, archived_at: patients.archived_at },
    })
    .from(promotionSends)
    .innerJoin(promotions, eq(promotions.id, promotionSends.promotion_id))
    .innerJoin(practices, eq(practices.id, promotionSends.practice_id))
    .innerJoin(patients, eq(patients.id, promotionSends.patient_id))
    .where(eq(promotionSends.token, token))
  if (!row) throw notFound(OFFER_MESSAGES.notFound)
  return row
}

type SendRow = Awaited<ReturnType<typeof sendOf>>

/** Where the offer of `row` stands for its patient now. */
async function answerOf(ctx: OfferContext, row: SendRow): Promise<OfferAnswer> {
  const now = ctx.now()
  const { promotion } = row
  const [latest] = await ctx.db
    .select({
      status: patientPromotions.status,
      ends_at: patientPromotions.ends_at,
    })
    .from(patientPromotions)
    .where(
      and(
        eq(patientPromotions.patient_id, row.send.patient_id),
        eq(patientPromotions.promotion_id, promotion.id),
      ),
    )
    .orderBy(desc(patientPromotions.id))
    .limit(1)
  const status = promotionStatus(promotion, now)
  let state: OfferAnswer['state'] = 'open'
  let reason: string | null = null
  const openClaim =
    latest?.status === 'claimed' && (!latest.ends_at || latest.ends_at.getTime() > now.getTime())
  if (openClaim) state = 'claimed'
  else if (latest?.status === 'redeemed') state = 'redeemed'
  else if (status !== 'live') {
    state = 'ended'
    reason = PROMOTION_MESSAGES.notLive[status]
  } else if (row.patient.archived_at) {
    state = 'unavailable'
    reason = OFFER_MESSAGES.unavailable
  } else if (promotion.max_redemptions !== null) {
    const [all] = await ctx.db
      .select({ n: count() })
      .from(patientPromotions)
      .where(eq(patientPromotions.promotion_id, promotion.id))
    if (Number(all?.n ?? 0) >= promotion.max_redemptions) {
      state = 'unavailable'
      reason = PROMOTION_MESSAGES.soldOut
    }
  }
  return {
    practice: {
      name: row.practice.name,
      logo: row.practice.logo,
      wallet_url: `/wallet/${row.practice.id}`,
    },
    patient: { first_name: row.patient.first_name },
    offer: {
      title: promotion.title,
      description: promotion.description,
      points_cost: promotion.points_cost,
      bonus_points: promotion.points,
      ends_at: promotion.ends_at?.toISOString() ?? null,
      value: await offerValueText(ctx.db, promotion),
    },
    state,
    reason,
  }
}

/**
 * The offer a patient's personal e-mail link names, with the practice's name and logo
 * and where it stands for that patient. A token that names no send is not found.
 */
export async function offerByToken(ctx: OfferContext, token: string): Promise<OfferAnswer> {
  return answerOf(ctx, await sendOf(ctx, token))
}

/**
 * Claims the offer of a personal link for its patient (the funnel's claimed step), through the
 * same rules as a claim at the desk (claimPromotion: live, dates, limits), and answers where it
 * stands then. Claimed already (a second click, another tab) or used: the same answer, nothing
 * new. A code-only offer needs no code here: the practice chose to send it to this patient.
 */
export async function claimOfferByToken(
  ctx: OfferContext,
  token: string,
  ip: string,
): Promise<OfferAnswer> {
  const row = await sendOf(ctx, token)
  const before = await answerOf(ctx, row)
  if (before.state === 'claimed' || before.state === 'redeemed') return before
  await claimPromotion(ctx.db, {
    practiceId: row.send.practice_id,
    promotionId: row.send.promotion_id,
    patientId: row.send.patient_id,
    // On record like a claim at the desk, with no staff member: the patient claimed it.
    actor: null,
    ip,
    code: row.promotion.code ?? undefined,
    now: ctx.now(),
  })
  return answerOf(ctx, row)
}
