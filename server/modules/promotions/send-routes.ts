import { Hono } from 'hono'
import { PromotionSendAnswerSchema, SEND_MESSAGES } from '#domain/offers.ts'
import { promotionStatus } from '#domain/promotions.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { conflict } from '#server/http/errors.ts'
import { idParams } from '#server/http/validate.ts'
import { readMailPractice } from '#server/modules/patient-mail/index.ts'
import { operation } from '#server/openapi/operation.ts'
import { queueOfferSends } from './send-service.ts'
import { offerValueText, promotionOf, readPromotion } from './service.ts'

/**
 * `POST /promotions/{id}/send` (mounted under `/api/promotions`, Manager and Admin): "Send to
 * patients" queues the live offer's e-mail for every patient marketing e-mail may reach who was
 * not sent it before, in one transaction under the offer's lock (two clicks never send twice),
 * and answers at once with the offer, its funnel and how many it queued; the worker sends them
 * after the answer. Audited with the count.
 */
export function promotionSendRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>().post(
    '/:id/send',
    operation({
      summary: 'Send a live offer to patients',
      description:
        "Send to patients: queues the offer's e-mail, with a personal link to the public offer page, for every patient of the practice with an e-mail, subscribed and not archived, who was not sent it before. The request queues them in one transaction and answers at once; the worker sends them. `queued` says how many this send reached. Manager, Admin. Audited.",
      tag: 'Promotions',
      responses: {
        200: {
          description: 'The offer with its funnel, and `queued`.',
          json: PromotionSendAnswerSchema,
        },
        404: 'No promotion has this id.',
        409: SEND_MESSAGES.notLive,
      },
    }),
    requireAuth(ctx),
    requirePermission(ctx, 'promotions.manage'),
    idParams('id'),
    async (c) => {
      const { id } = c.req.valid('param')
      const user = c.var.user
      const now = ctx.now()
      const { queued, title } = await ctx.db.transaction(async (tx) => {
        const promotion = await promotionOf(tx, user.practice_id, id, true)
        if (promotionStatus(promotion, now) !== 'live') throw conflict(SEND_MESSAGES.notLive)
        const practice = await readMailPractice(tx, user.practice_id, ctx.config.publicUrl)
        const count = await queueOfferSends(tx, {
          practiceId: user.practice_id,
          promotionId: promotion.id,
          practice,
          offer: {
            title: promotion.title,
            description: promotion.description,
            value: await offerValueText(tx, promotion),
          },
          publicUrl: ctx.config.publicUrl,
          now,
        })
        return { queued: count, title: promotion.title }
      })
      if (queued > 0) ctx.outbound.kick()
      await ctx.audit.record({
        action: 'promotion.sent',
        userId: user.id,
        practiceId: user.practice_id,
        ip: ctx.clientIp(c),
        details: { promotion_id: id, title, sent: queued },
      })
      return c.json({ ...(await readPromotion(ctx.db, user.practice_id, id, now)), queued })
    },
  )
}
