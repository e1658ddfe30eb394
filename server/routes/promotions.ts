import { and, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import { PromotionActionInputSchema } from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import type { Database } from '#server/db/client.ts'
import { activities, patientPromotions, promotions } from '#server/db/schema.ts'
import { badRequest, conflict } from '#server/http/errors.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { createLedger } from '#server/services/ledger.ts'
import { findPatient, promotionColumns } from './patients.ts'

/** Loads the promotion and the patient of a claim or redemption, both from the user's practice. */
async function loadPair(
  db: Database,
  user: AuthUser,
  promo: number,
  input: { promo: number | string; patient_id: number },
) {
  if (Number(input.promo) !== promo) {
    throw badRequest('promo in the body must be the promotion of the path.', { promo: input.promo })
  }
  const [row] = await db
    .select(promotionColumns)
    .from(promotions)
    .where(eq(promotions.id, promo))
    .limit(1)
  const promotion = ownRow(user, row, 'Promotion')
  const patient = ownRow(user, await findPatient(db, input.patient_id), 'Patient')
  return { promotion, patient }
}

/** The patient's promotion as the API answers it (domain `PatientPromotionSchema`). */
async function patientPromotion(db: Database, patientId: number, promotionId: number) {
  const [row] = await db
    .select({
      patient_id: patientPromotions.patient_id,
      promotion_id: patientPromotions.promotion_id,
      status: patientPromotions.status,
      claimed_at: patientPromotions.claimed_at,
      redeemed_at: patientPromotions.redeemed_at,
      promotion: promotionColumns,
    })
    .from(patientPromotions)
    .innerJoin(promotions, eq(promotions.id, patientPromotions.promotion_id))
    .where(
      and(
        eq(patientPromotions.patient_id, patientId),
        eq(patientPromotions.promotion_id, promotionId),
      ),
    )
    .limit(1)
  return row
}

/**
 * A patient claims a promotion, then redeems it (spec section 7; body `{promo, patient_id}`).
 * Claiming again is harmless; claiming outside the promotion's dates, or after redeeming, is a
 * 409. Redeeming needs a claim, happens once, adds the promotion's points to the patient and
 * records an activity. Both answer the patient's promotion.
 */
export function promotionRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .put(
      '/claimed/:promo',
      requirePermission(ctx, 'patients.write'),
      idParams('promo'),
      jsonBody(PromotionActionInputSchema),
      async (c) => {
        const { promo } = c.req.valid('param')
        const { promotion, patient } = await loadPair(
          ctx.db,
          c.var.user,
          promo,
          c.req.valid('json'),
        )
        const now = ctx.now()
        if (promotion.starts_at && promotion.starts_at > now) {
          throw conflict('This promotion has not started yet.')
        }
        if (promotion.ends_at && promotion.ends_at <= now)
          throw conflict('This promotion has ended.')
        await ctx.db.transaction(async (tx) => {
          const inserted = await tx
            .insert(patientPromotions)
            .values({
              patient_id: patient.id,
              promotion_id: promotion.id,
              status: 'claimed',
              claimed_at: now,
            })
            .onConflictDoNothing()
            .returning({ status: patientPromotions.status })
          if (inserted.length > 0) {
            await tx.insert(activities).values({
              practice_id: patient.practice_id,
              patient_id: patient.id,
              kind: 'promotion_claimed',
              description: promotion.title,
              points: 0,
              created_at: now,
            })
            return
          }
          const existing = await patientPromotion(tx, patient.id, promotion.id)
          if (existing?.status === 'redeemed') throw conflict('This promotion is already redeemed.')
        })
        return c.json(await patientPromotion(ctx.db, patient.id, promotion.id))
      },
    )
    .put(
      '/redeemed/:promo',
      requirePermission(ctx, 'redeem.withCode'),
      idParams('promo'),
      jsonBody(PromotionActionInputSchema),
      async (c) => {
        const { promo } = c.req.valid('param')
        const { promotion, patient } = await loadPair(
          ctx.db,
          c.var.user,
          promo,
          c.req.valid('json'),
        )
        const now = ctx.now()
        await ctx.db.transaction(async (tx) => {
          // The status condition makes a second, concurrent redemption update nothing.
          const redeemed = await tx
            .update(patientPromotions)
            .set({ status: 'redeemed', redeemed_at: now })
            .where(
              and(
                eq(patientPromotions.patient_id, patient.id),
                eq(patientPromotions.promotion_id, promotion.id),
                eq(patientPromotions.status, 'claimed'),
              ),
            )
            .returning({ status: patientPromotions.status })
          if (redeemed.length === 0) {
            const existing = await patientPromotion(tx, patient.id, promotion.id)
            throw conflict(
              existing
                ? 'This promotion is already redeemed.'
                : 'This promotion has not been claimed yet.',
            )
          }
          // The promotion's points reach the balance through the ledger, as a bonus entry, in this
          // same transaction: the redemption and its points are one change or none.
          if (promotion.points > 0) {
            await createLedger({ db: tx, now: ctx.now }).credit({
              practiceId: patient.practice_id,
              patientId: patient.id,
              userId: c.var.user.id,
              kind: 'bonus',
              points: promotion.points,
              sourceType: 'promotion',
              sourceId: promotion.id,
              idempotencyKey: `promotion:${promotion.id}:patient:${patient.id}:redeemed`,
            })
          }
          await tx.insert(activities).values({
            practice_id: patient.practice_id,
            patient_id: patient.id,
            kind: 'promotion_redeemed',
            description: promotion.title,
            points: promotion.points,
            created_at: now,
          })
        })
        return c.json(await patientPromotion(ctx.db, patient.id, promotion.id))
      },
    )
}
