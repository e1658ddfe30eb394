/**
 * The front desk over HTTP (issue 17): `/visits` (preview, record, read, undo) and a patient's
 * redemption code and redemptions. The rules live in server/services/visits.ts; every posting is
 * audited once (who, which patient id, how many points; never a personal value).
 */
import { Hono } from 'hono'
import { RedemptionInputSchema, VisitInputSchema, VisitPreviewInputSchema } from '#domain/visits.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import { ApiError } from '#server/http/errors.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { createCheckout, type PostingSummary } from '#server/services/visits.ts'

/** Audits a refused override like the permission middleware does, then lets it through. */
async function auditRefusal(
  ctx: ServerContext,
  user: AuthUser,
  ip: string,
  error: unknown,
): Promise<never> {
  if (error instanceof ApiError && error.status === 403 && error.message.startsWith('Only ')) {
    await ctx.audit.record({
      action: 'permission.refused',
      userId: user.id,
      practiceId: user.practice_id,
      ip,
      details: { permission: 'redeem.override' },
    })
  }
  throw error
}

function auditDetails(summary: PostingSummary, extra: Record<string, number>) {
  return {
    patient_id: summary.patient_id,
    earned: summary.earned,
    redeemed: summary.redeemed,
    bonus: summary.bonus,
    override: summary.override,
    ...extra,
  }
}

/** `/visits`. */
export function visitRoutes(ctx: ServerContext) {
  const checkout = createCheckout({
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    publicUrl: ctx.config.publicUrl,
  })

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .post(
      '/preview',
      requirePermission(ctx, 'visits.record'),
      jsonBody(VisitPreviewInputSchema),
      async (c) => {
        c.header('Cache-Control', 'no-store')
        return c.json(await checkout.preview(c.var.user, c.req.valid('json')))
      },
    )
    .post('/', requirePermission(ctx, 'visits.record'), jsonBody(VisitInputSchema), async (c) => {
      const user = c.var.user
      const ip = ctx.clientIp(c)
      const result = await checkout
        .record(user, c.req.valid('json'))
        .catch((error) => auditRefusal(ctx, user, ip, error))
      if (!result.replayed) {
        await ctx.audit.record({
          action: 'visit.recorded',
          userId: user.id,
          practiceId: user.practice_id,
          ip,
          details: auditDetails(result.summary, { visit_id: result.answer.visit.id }),
        })
      }
      return c.json(result.answer, 201)
    })
    .get('/:id', requirePermission(ctx, 'visits.record'), idParams('id'), async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await checkout.read(c.var.user, c.req.valid('param').id))
    })
    .post('/:id/undo', requirePermission(ctx, 'visits.record'), idParams('id'), async (c) => {
      const user = c.var.user
      const { id } = c.req.valid('param')
      const result = await checkout.undo(user, id)
      if (!result.replayed) {
        await ctx.audit.record({
          action: 'visit.undone',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { patient_id: result.patientId, visit_id: id, points: result.points },
        })
      }
      return c.json({ entries: result.entries, balance: result.balance }, 201)
    })
}

/** `/patients/{id}/redemption-code` and `/patients/{id}/redemptions`. */
export function patientRedemptionRoutes(ctx: ServerContext) {
  const checkout = createCheckout({
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    publicUrl: ctx.config.publicUrl,
  })

  return new Hono<AppEnv>()
    .post(
      '/:id/redemption-code',
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      async (c) => {
        const user = c.var.user
        const { id } = c.req.valid('param')
        const answer = await checkout.sendCode(user, id)
        await ctx.audit.record({
          action: 'redemption.code_sent',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { patient_id: id },
        })
        return c.json(answer, 201)
      },
    )
    .post(
      '/:id/redemptions',
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionInputSchema),
      async (c) => {
        const user = c.var.user
        const ip = ctx.clientIp(c)
        const { id } = c.req.valid('param')
        const result = await checkout
          .redeem(user, id, c.req.valid('json'))
          .catch((error) => auditRefusal(ctx, user, ip, error))
        if (!result.replayed) {
          await ctx.audit.record({
            action: 'ledger.posted',
            userId: user.id,
            practiceId: user.practice_id,
            ip,
            details: auditDetails(result.summary, { entry_id: result.entry.id }),
          })
        }
        return c.json({ entry: result.entry, balance: result.balance, bonus: result.bonus }, 201)
      },
    )
}
