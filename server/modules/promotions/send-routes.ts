import { Hono } from 'hono'
import { PromotionSendAnswerSchema, SEND_MESSAGES } from '#domain/offers.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { idParams } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { sendOfferOnRecord } from './sending.ts'
import { readPromotion } from './service.ts'

/**
 * `POST /promotions/{id}/send` (mounted under `/api/promotions`, Manager and Admin): "Send to
 * patients" queues the live offer's e-mail for every patient marketing e-mail may reach who was
 * not sent it before, in one transaction under the offer's lock (two clicks never send twice),
 * and answers at once with the offer, its funnel and how many it queued; the worker sends them
 * after the answer. On record with the count, in the same transaction.
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
      const { queued } = await sendOfferOnRecord(
        ctx.db,
        { user, ip: ctx.clientIp(c) },
        { promotionId: id, publicUrl: ctx.config.publicUrl, now },
      )
      // After the commit: the worker finds the queued rows.
      if (queued > 0) ctx.outbound.kick()
      return c.json({ ...(await readPromotion(ctx.db, user.practice_id, id, now)), queued })
    },
  )
}
