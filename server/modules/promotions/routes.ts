/**
 * `/promotions` (issue 18, PORTAL.md section 7): the practice's offers (paged by status, with
 * their funnels), their life (create, edit, publish, end, duplicate, archive, delete a draft
 * nobody claimed) and the spec's funnel steps `PUT /promotions/claimed/{promo}` and
 * `PUT /promotions/redeemed/{promo}`. The rules live in server/modules/promotions/service.ts; every
 * change is audited.
 */
import { type Context, Hono } from 'hono'
import type { AuditAction } from '#domain/activity-log.ts'
import { can } from '#domain/permissions.ts'
import {
  EMPTY_FUNNEL,
  PromotionChangeSchema,
  PromotionClaimInputSchema,
  PromotionInputSchema,
  PromotionListQuerySchema,
  PromotionRedeemInputSchema,
  withoutMoney,
} from '#domain/promotions.ts'
import type { AuditDetail } from '#server/audit/audit.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ApiError, badRequest } from '#server/http/errors.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { createCheckout } from '#server/modules/visits/index.ts'
import {
  claimPromotion,
  createPromotion,
  deletePromotion,
  listPromotions,
  type PromotionAction,
  promotionAnswer,
  readPromotion,
  redeemPromotion,
  transitionPromotion,
  updatePromotion,
} from './service.ts'

/** The promotion of the path; a body's `promo`, when given, must name the same one. */
function samePromo(promo: number, body: { promo?: number | string | undefined }) {
  if (body.promo !== undefined && Number(body.promo) !== promo) {
    throw badRequest('promo in the body must be the promotion of the path.', { promo: body.promo })
  }
}

const ACTION_AUDIT: Record<PromotionAction, AuditAction> = {
  publish: 'promotion.published',
  end: 'promotion.ended',
  duplicate: 'promotion.duplicated',
  archive: 'promotion.archived',
}

export function promotionRoutes(ctx: ServerContext) {
  const checkout = createCheckout({
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    publicUrl: ctx.config.publicUrl,
    secret: ctx.config.jwtSecret,
  })
  const audit = (c: Context<AppEnv>, action: AuditAction, details: Record<string, AuditDetail>) =>
    ctx.audit.record({
      action,
      userId: c.var.user.id,
      practiceId: c.var.user.practice_id,
      ip: ctx.clientIp(c),
      details,
    })
  const manage = requirePermission(ctx, 'promotions.manage')

  const transition = (action: PromotionAction) =>
    [
      manage,
      idParams('id'),
      async (c: Context<AppEnv>) => {
        const id = Number(c.req.param('id'))
        const now = ctx.now()
        const row = await transitionPromotion(ctx.db, c.var.user, id, action, now)
        await audit(c, ACTION_AUDIT[action], {
          promotion_id: id,
          title: row.title,
          ...(action === 'duplicate' ? { copy_id: row.id } : {}),
        })
        return c.json(
          await readPromotion(ctx.db, c.var.user.practice_id, row.id, now),
          action === 'duplicate' ? 201 : 200,
        )
      },
    ] as const

  return (
    new Hono<AppEnv>()
      .use(requireAuth(ctx))
      // The spec's funnel steps first, so that `claimed` and `redeemed` are never read as ids.
      .put(
        '/claimed/:promo',
        requirePermission(ctx, 'patients.write'),
        idParams('promo'),
        jsonBody(PromotionClaimInputSchema),
        async (c) => {
          const { promo } = c.req.valid('param')
          const input = c.req.valid('json')
          samePromo(promo, input)
          const result = await claimPromotion(ctx.db, {
            practiceId: c.var.user.practice_id,
            promotionId: promo,
            patientId: input.patient_id,
            actor: c.var.user,
            code: input.code,
            now: ctx.now(),
          })
          if (result.created) {
            await audit(c, 'promotion.claimed', {
              promotion_id: promo,
              patient_id: input.patient_id,
              claim_id: result.claim.id,
              title: result.promotion.title,
            })
          }
          return c.json(result.claim)
        },
      )
      .put(
        '/redeemed/:promo',
        requirePermission(ctx, 'redeem.withCode'),
        idParams('promo'),
        jsonBody(PromotionRedeemInputSchema),
        async (c) => {
          const { promo } = c.req.valid('param')
          const input = c.req.valid('json')
          samePromo(promo, input)
          const user = c.var.user
          const result = await redeemPromotion({ db: ctx.db, now: ctx.now, checkout }, user, {
            patientId: input.patient_id,
            promotionId: promo,
            idempotencyKey: input.idempotencyKey,
            verification: input.verification,
            override: input.override,
          }).catch(async (error: unknown) => {
            if (
              error instanceof ApiError &&
              error.status === 403 &&
              error.message.startsWith('Only ')
            ) {
              await audit(c, 'permission.refused', { permission: 'redeem.override' })
            }
            throw error
          })
          if (!result.replayed) {
            await audit(c, 'promotion.redeemed', {
              promotion_id: promo,
              patient_id: input.patient_id,
              claim_id: result.claim.id,
              title: result.claim.title,
              redeemed: result.posting?.summary.redeemed ?? 0,
              bonus: result.posting?.summary.bonus ?? 0,
              override: result.posting?.summary.override ?? false,
              ...(result.posting ? { entry_id: result.posting.entry.id } : {}),
            })
          }
          return c.json({
            ...result.claim,
            entry: result.posting?.entry ?? null,
            bonus: result.posting?.bonus ?? null,
            balance: result.posting?.balance ?? null,
          })
        },
      )
      .get('/', requirePermission(ctx, 'patients.read'), async (c) => {
        const query = parseOr400(PromotionListQuerySchema, c.req.query())
        const page = await listPromotions(ctx.db, c.var.user.practice_id, query, ctx.now())
        // Money (the funnel's revenue) only for those who may see it (issue 28).
        const money = can(c.var.user.access_rights, 'reports.money')
        return c.json({ ...page, data: page.data.map((offer) => withoutMoney(offer, money)) })
      })
      .post('/', manage, jsonBody(PromotionInputSchema), async (c) => {
        const now = ctx.now()
        const row = await createPromotion(ctx.db, c.var.user, c.req.valid('json'), now)
        await audit(c, 'promotion.created', { promotion_id: row.id, title: row.title })
        return c.json(await readPromotion(ctx.db, c.var.user.practice_id, row.id, now), 201)
      })
      .get('/:id', requirePermission(ctx, 'patients.read'), idParams('id'), async (c) => {
        const { id } = c.req.valid('param')
        const offer = await readPromotion(ctx.db, c.var.user.practice_id, id, ctx.now())
        return c.json(withoutMoney(offer, can(c.var.user.access_rights, 'reports.money')))
      })
      .put('/:id', manage, idParams('id'), jsonBody(PromotionChangeSchema), async (c) => {
        const { id } = c.req.valid('param')
        const now = ctx.now()
        const { row, fields } = await updatePromotion(
          ctx.db,
          c.var.user.practice_id,
          id,
          c.req.valid('json'),
          now,
        )
        if (fields.length > 0) {
          await audit(c, 'promotion.updated', {
            promotion_id: id,
            title: row.title,
            fields: fields.join(','),
          })
        }
        return c.json(await readPromotion(ctx.db, c.var.user.practice_id, id, now))
      })
      .delete('/:id', manage, idParams('id'), async (c) => {
        const { id } = c.req.valid('param')
        const now = ctx.now()
        const row = await deletePromotion(ctx.db, c.var.user.practice_id, id, now)
        await audit(c, 'promotion.deleted', { promotion_id: id, title: row.title })
        return c.json(promotionAnswer(row, EMPTY_FUNNEL, now))
      })
      .post('/:id/publish', ...transition('publish'))
      .post('/:id/end', ...transition('end'))
      .post('/:id/duplicate', ...transition('duplicate'))
      .post('/:id/archive', ...transition('archive'))
  )
}
