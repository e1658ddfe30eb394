/**
 * `/promotions`: the practice's offers (paged by status, with
 * their funnels), their life (create, edit, publish, end, duplicate, archive, delete a draft
 * nobody claimed) and the spec's funnel steps `PUT /promotions/claimed/{promo}` and
 * `PUT /promotions/redeemed/{promo}`. The rules live in server/modules/promotions/service.ts, which
 * records every change with the transaction that makes it.
 */
import { type Context, Hono } from 'hono'
import { can } from '#domain/permissions.ts'
import { PatientPromotionSchema } from '#domain/practice-data.ts'
import {
  EMPTY_FUNNEL,
  OfferClaimsPageSchema,
  OfferClaimsQuerySchema,
  PROMOTION_MESSAGES,
  PromotionChangeSchema,
  PromotionClaimInputSchema,
  PromotionDetailSchema,
  PromotionInputSchema,
  PromotionListQuerySchema,
  PromotionPageSchema,
  PromotionRedeemInputSchema,
  PromotionRedemptionSchema,
  withoutMoney,
} from '#domain/promotions.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest } from '#server/http/errors.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { PermissionRefusal, serverCheckout } from '#server/modules/visits/index.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { listOfferClaims } from './queries.ts'
import {
  claimPromotion,
  createPromotion,
  deletePromotion,
  listPromotions,
  type PromotionAction,
  promotionAnswer,
  readPromotion,
  redeemPromotion,
  type Staff,
  transitionPromotion,
  updatePromotion,
} from './service.ts'

/** The promotion of the path; a body's `promo`, when given, must name the same one. */
function samePromo(promo: number, body: { promo?: number | string | undefined }) {
  if (body.promo !== undefined && Number(body.promo) !== promo) {
    throw badRequest('promo in the body must be the promotion of the path.', { promo: body.promo })
  }
}

export function promotionLifeRoutes(ctx: ServerContext) {
  const checkout = serverCheckout(ctx)
  /** Who asks, for the audit events the service records with each change. */
  const staff = (c: Context<AppEnv>): Staff => ({ user: c.var.user, ip: ctx.clientIp(c) })
  const manage = requirePermission(ctx, 'promotions.manage')

  /**
   * `POST /:id/<action>`, one step of an offer's life (Manager, Admin, audited), answering the
   * offer as it is after: its reference entry, then its checks and handler. A duplicate answers
   * 201 with the new draft; every other step 200, or 409 with `conflict` when the offer cannot
   * take it.
   */
  const transition = (
    action: PromotionAction,
    doc: { summary: string; description: string; conflict?: string },
  ) =>
    [
      operation({
        summary: doc.summary,
        description: `${doc.description} Manager, Admin. Audited.`,
        tag: 'Promotions',
        responses:
          doc.conflict === undefined
            ? {
                201: { description: 'The new draft.', json: PromotionDetailSchema },
                404: 'No promotion has this id.',
              }
            : {
                200: { description: 'The offer.', json: PromotionDetailSchema },
                404: 'No promotion has this id.',
                409: doc.conflict,
              },
      }),
      manage,
      idParams('id'),
      async (c: Context<AppEnv>) => {
        const id = Number(c.req.param('id'))
        const now = ctx.now()
        const row = await transitionPromotion(ctx.db, staff(c), id, action, now)
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
        operation({
          summary: 'Claim an offer for a patient',
          description:
            "The claimed step of the funnel: a live offer, within its total and per-patient limits (checked under the offer's row lock, so concurrent claims cannot pass them), with its `code` when the offer is code-only. A patient who already holds an open claim gets it back. The claim keeps the offer's terms as they are now (`title`, `points_cost`, `bonus_points`, `ends_at`). `promo` in the body, when given, must be the promotion of the path. Audited.",
          tag: 'Promotions',
          responses: {
            200: { description: 'The claim.', json: PatientPromotionSchema },
            403: PROMOTION_MESSAGES.codeNeeded,
            404: 'No promotion or patient has this id.',
            409: 'The offer is not live, has reached its limit, or the patient reached the limit per patient.',
            422: PROMOTION_MESSAGES.codeWrong,
          },
        }),
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
            ip: ctx.clientIp(c),
            code: input.code,
            now: ctx.now(),
          })
          return c.json(result.claim)
        },
      )
      .put(
        '/redeemed/:promo',
        operation({
          summary: "Redeem a patient's claimed offer",
          description:
            "The redeemed step of the funnel, through the ledger exactly once: the claim's points cost is taken and its bonus given, as `POST /patients/{id}/redemptions` does (the patient's code above the programme's threshold, or a manager's override with a reason). `idempotencyKey` defaults to one per claim, so a repeat answers the same redemption. Audited.",
          tag: 'Promotions',
          responses: {
            200: {
              description: 'The redeemed claim and its entries.',
              json: PromotionRedemptionSchema,
            },
            403: "The patient's code is needed, or an override needs a manager.",
            404: 'No promotion or patient has this id.',
            409: 'The offer is not claimed, already redeemed, its claim has expired, the balance is too low, or the patient was merged into another record.',
            422: 'The code is wrong, used or expired.',
            429: TOO_MANY,
          },
        }),
        requirePermission(ctx, 'redeem.withCode'),
        idParams('promo'),
        jsonBody(PromotionRedeemInputSchema),
        async (c) => {
          const { promo } = c.req.valid('param')
          const input = c.req.valid('json')
          samePromo(promo, input)
          const result = await redeemPromotion({ db: ctx.db, now: ctx.now, checkout }, staff(c), {
            patientId: input.patient_id,
            promotionId: promo,
            idempotencyKey: input.idempotencyKey,
            verification: input.verification,
            override: input.override,
          }).catch(async (error: unknown) => {
            // The refusal is on record; the refused redemption changed nothing.
            if (error instanceof PermissionRefusal) {
              await ctx.audit.record({
                action: 'permission.refused',
                userId: c.var.user.id,
                practiceId: c.var.user.practice_id,
                ip: ctx.clientIp(c),
                details: { permission: error.permission },
              })
            }
            throw error
          })
          return c.json({
            ...result.claim,
            entry: result.posting?.entry ?? null,
            bonus: result.posting?.bonus ?? null,
            balance: result.posting?.balance ?? null,
          })
        },
      )
      .get(
        '/',
        operation({
          summary: 'List offers',
          description:
            "A page of the practice's offers (one `status`, or all), latest start first, each with its funnel: sent, claimed, redeemed, expired, the redemption rate and the revenue of the visits where it was redeemed (cents).",
          tag: 'Promotions',
          query: PromotionListQuerySchema,
          responses: {
            200: { description: 'The page and the total.', json: PromotionPageSchema },
            400: 'A query parameter is not valid.',
          },
        }),
        requirePermission(ctx, 'patients.read'),
        async (c) => {
          const query = parseOr400(PromotionListQuerySchema, c.req.query())
          const page = await listPromotions(ctx.db, c.var.user.practice_id, query, ctx.now())
          // Money (the funnel's revenue) only for those who may see it.
          const money = can(c.var.user.access_rights, 'reports.money')
          return c.json({ ...page, data: page.data.map((offer) => withoutMoney(offer, money)) })
        },
      )
      .post(
        '/',
        operation({
          summary: 'Create an offer',
          description:
            "A new draft: title, description, points cost (0 = free), bonus points, start and end, total and per-patient limits, a code for a code-only offer, and its value: `discount_cents` (an amount off a visit, once, never below $0) or `discount_percent` (1 to 100, off each matching line), not both, for `procedure_ids` (the practice's procedures; empty = any procedure). Manager, Admin. Audited.",
          tag: 'Promotions',
          responses: {
            201: { description: 'The draft.', json: PromotionDetailSchema },
          },
        }),
        manage,
        jsonBody(PromotionInputSchema),
        async (c) => {
          const now = ctx.now()
          const row = await createPromotion(ctx.db, staff(c), c.req.valid('json'), now)
          return c.json(await readPromotion(ctx.db, c.var.user.practice_id, row.id, now), 201)
        },
      )
      .get(
        '/:id',
        operation({
          summary: 'Read an offer',
          description: 'The offer, its status and its funnel.',
          tag: 'Promotions',
          responses: {
            200: { description: 'The offer.', json: PromotionDetailSchema },
            404: 'No promotion has this id.',
          },
        }),
        requirePermission(ctx, 'patients.read'),
        idParams('id'),
        async (c) => {
          const { id } = c.req.valid('param')
          const offer = await readPromotion(ctx.db, c.var.user.practice_id, id, ctx.now())
          return c.json(withoutMoney(offer, can(c.var.user.access_rights, 'reports.money')))
        },
      )
      .get(
        '/:id/claims',
        operation({
          summary: 'List who claimed an offer',
          description:
            "A page of the offer's claims (one `status`, or all), newest first, each with the patient's name and where the claim stands: `claimed` (open, not yet used), `redeemed`, or `expired` (the offer ended first). The desk's list of whom to call about an offer they have not used.",
          tag: 'Promotions',
          query: OfferClaimsQuerySchema,
          responses: {
            200: { description: 'The page and the total.', json: OfferClaimsPageSchema },
            400: 'A query parameter is not valid.',
            404: 'No promotion has this id.',
          },
        }),
        requirePermission(ctx, 'patients.read'),
        idParams('id'),
        async (c) => {
          const { id } = c.req.valid('param')
          const query = parseOr400(OfferClaimsQuerySchema, c.req.query())
          return c.json(await listOfferClaims(ctx.db, c.var.user.practice_id, id, query, ctx.now()))
        },
      )
      .put(
        '/:id',
        operation({
          summary: 'Change an offer',
          description:
            'A draft or scheduled offer changes freely; a live one only its title, description, end and limits. Claims keep the terms they were made with. Manager, Admin. Audited.',
          tag: 'Promotions',
          responses: {
            200: { description: 'The offer.', json: PromotionDetailSchema },
            404: 'No promotion has this id.',
            409: 'The offer is ended or archived, or the field cannot change while it is live.',
          },
        }),
        manage,
        idParams('id'),
        jsonBody(PromotionChangeSchema),
        async (c) => {
          const { id } = c.req.valid('param')
          const now = ctx.now()
          await updatePromotion(ctx.db, staff(c), id, c.req.valid('json'), now)
          return c.json(await readPromotion(ctx.db, c.var.user.practice_id, id, now))
        },
      )
      .delete(
        '/:id',
        operation({
          summary: 'Delete a draft',
          description:
            'Only a draft nobody claimed; a claimed offer is archived instead, so that its history stays. Answers the deleted offer. Manager, Admin. Audited.',
          tag: 'Promotions',
          responses: {
            200: { description: 'The deleted offer.', json: PromotionDetailSchema },
            404: 'No promotion has this id.',
            409: PROMOTION_MESSAGES.deleteClaimed,
          },
        }),
        manage,
        idParams('id'),
        async (c) => {
          const { id } = c.req.valid('param')
          const now = ctx.now()
          const row = await deletePromotion(ctx.db, staff(c), id, now)
          return c.json(promotionAnswer(row, EMPTY_FUNNEL, now))
        },
      )
      .post(
        '/:id/publish',
        ...transition('publish', {
          summary: 'Publish an offer',
          description: 'A draft becomes Scheduled (before its start) or Live.',
          conflict: 'Only a draft whose end has not passed can be published.',
        }),
      )
      .post(
        '/:id/end',
        ...transition('end', {
          summary: 'End an offer',
          description: 'A scheduled or live offer ends now: no more claims; open claims expire.',
          conflict: PROMOTION_MESSAGES.endNotRunning,
        }),
      )
      .post(
        '/:id/duplicate',
        ...transition('duplicate', {
          summary: 'Duplicate an offer',
          description: 'A new draft with the same terms (dates that have passed are left empty).',
        }),
      )
      .post(
        '/:id/archive',
        ...transition('archive', {
          summary: 'Archive an offer',
          description: 'A draft or an ended offer is put away; its claims and funnel stay.',
          conflict: PROMOTION_MESSAGES.archiveRunning,
        }),
      )
  )
}
