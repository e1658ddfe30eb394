/**
 * The front desk over HTTP: `/visits` (preview, record, read, undo) and a patient's
 * redemption code and redemptions. The rules live in the module's use cases, which service.ts
 * composes; every posting is audited once, in its transaction (who, which patient id, how many
 * points; never a personal value).
 */
import { Hono } from 'hono'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import {
  ApprovalAnswerSchema,
  ApprovalRequestSchema,
  RedemptionAnswerSchema,
  RedemptionCodeAnswerSchema,
  RedemptionCodeCheckAnswerSchema,
  RedemptionCodeCheckSchema,
  RedemptionCodeInputSchema,
  RedemptionInputSchema,
  VisitAnswerSchema,
  VisitInputSchema,
  VisitPreviewInputSchema,
  VisitPreviewSchema,
  VisitUndoAnswerSchema,
} from '#domain/visits.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { refuseWhenLimited } from '#server/modules/auth/index.ts'
import { OTHER_PRACTICE, operation, TOO_MANY } from '#server/openapi/operation.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { approverOf } from './approver.ts'
import { serverCheckout } from './service.ts'
import { PermissionRefusal } from './shared.ts'

/** How many codes one member may check a minute (`POST /patients/{id}/redemption-code/check`). */
export const CODE_CHECKS_PER_MEMBER = { max: 20, windowMs: 60 * 1000 }

/**
 * Records a refused permission like the permission middleware does (what was refused is not a
 * change: nothing else is written), then lets the refusal through.
 */
async function auditRefusal(
  ctx: ServerContext,
  user: AuthUser,
  ip: string,
  error: unknown,
): Promise<never> {
  if (error instanceof PermissionRefusal) {
    await ctx.audit.record({
      action: 'permission.refused',
      userId: user.id,
      practiceId: user.practice_id,
      ip,
      details: { permission: error.permission },
    })
  }
  throw error
}

/** `/visits`. */
export function visitRoutes(ctx: ServerContext) {
  const checkout = serverCheckout(ctx)

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .post(
      '/approval',
      operation({
        summary: "Approve a visit's prices and points",
        description:
          "A manager's approval of lines priced above the catalogue or earning more points than the programme's ceiling per line, with a reason: either a Manager or Admin signs in at the desk (`manager`: e-mail and password, counted like a sign-in: 5 failures an account, and 30 accounts failing from one address, in 15 minutes; a colleague's failures never refuse the manager) or the session's member is a Manager or Admin. Answers a token valid 15 minutes, bound to this patient and exactly these lines (items, quantities, prices), for one visit; send it as `approval.token` with POST /visits. Audited with the approver and the reason.",
        tag: 'Visits',
        responses: {
          201: { description: 'The approval token and who approved.', json: ApprovalAnswerSchema },
          403: 'The approver is not a Manager or Admin of this practice.',
          404: 'No patient, procedure or product has this id in your practice.',
          422: "The manager's e-mail or password is not correct, the lines need no approval, or an item is archived.",
          429: TOO_MANY,
        },
      }),
      requirePermission(ctx, 'visits.record'),
      jsonBody(ApprovalRequestSchema),
      async (c) => {
        const user = c.var.user
        const ip = ctx.clientIp(c)
        const input = c.req.valid('json')
        // Another practice's patient is not found, whoever would approve.
        await checkout.refuseOtherPatient(user, input.patient_id)
        const approverId = await approverOf(ctx, user, ip, input.manager)
        return c.json(await checkout.approve(user, approverId, input, ip), 201)
      },
    )
    .post(
      '/preview',
      operation({
        summary: "Preview a visit's points",
        description:
          "The lines with their price and points (the item's points per unit × quantity, or price × points per dollar), a line inside its procedure's minimum days between awards earning 0 with the day it opens again, the total, the balance, the point value, the redemption code threshold, the points ceiling per line and `approval_needed`: a sentence for each line priced above its catalogue price or earning more than the ceiling (a manager's approval is then needed to record the visit), and `offer_values`: for each offer with value the patient has claimed, what it would take off each line, the total to pay, the points earned on it, or why it matches no line; and `membership`: the patient's membership (the live one, or an ended one whose bank still holds value) with whether its perks apply, the flag the desk reads first when they do not (past due, unpaid, paused), what the bank holds and each allowance's units per cycle, left and used by these lines. The lines then carry `allowance_units` and `member_discount_cents`, `points` is after the member's multiplier and `total_cents` is what is due before an offer and the bank (`subtotal_cents`: the lines at their prices). Writes nothing.",
        tag: 'Visits',
        responses: {
          200: {
            description: 'The priced lines and the programme figures.',
            json: VisitPreviewSchema,
          },
          404: 'No patient, appointment, procedure or product has this id in your practice.',
          409: 'The appointment is already completed or cancelled.',
          422: 'An item is archived, or the appointment belongs to another patient.',
        },
      }),
      requirePermission(ctx, 'visits.record'),
      jsonBody(VisitPreviewInputSchema),
      async (c) => {
        return c.json(await checkout.preview(c.var.user, c.req.valid('json')))
      },
    )
    .post(
      '/',
      operation({
        summary: 'Record a visit',
        description:
          "In one transaction under the patient's lock: the visit, its earn entries, the optional redemption (after the earn; the patient's code above the programme threshold, or a manager's override with a reason), a promotion's bonus and the appointment completed. The redemption may take `points`, `promotion_id` or both (one consent for both). An offer with value lowers its matching lines (worked out here, never taken from the request): the visit's `total_cents` is what the patient pays, `discount_cents` what the offer took off, and each discounted line earns points in proportion to what is paid for it; an offer whose procedures match no line is refused with 422. A line priced above its catalogue price or earning more than the programme's points ceiling per line needs `approval`: the token of POST /visits/approval for exactly these lines, or (a Manager or Admin recording it) a reason; the visit keeps who approved and why. A member's visit (an active membership) uses the plan's included treatments first (`allowance_units` per line, free, earning no points), then the member price on what is still charged (`member_discount_cents` per line), then the offer on what is left, and multiplies the points by the plan's multiplier; a past-due, unpaid or paused membership gives no perks (the preview's `membership.flag` says why). `redemption.bank_cents` pays part or all of `total_cents` from the membership bank, always with the patient's code (or a manager's override), never more than the bank holds or the visit comes to; the bank's value is the patient's whatever the membership's status. The same idempotencyKey again answers the same visit and writes nothing.",
        tag: 'Visits',
        responses: {
          201: {
            description: 'The visit, its lines and entries, the balance.',
            json: VisitAnswerSchema,
          },
          403: "A manager's approval is needed (each line's reason), the approval is for other lines or expired; the patient's code is needed to redeem N points, or only a manager or an admin can redeem without it.",
          404: 'No patient, appointment, item or promotion has this id in your practice.',
          409: 'Not enough points: the balance is N; the membership bank holds less than `bank_cents`. Or the appointment is already completed or cancelled, the promotion not claimed or already redeemed, the patient archived or merged into another record, the approval already used, or the key used for another change.',
          422: 'The code is not correct, expired, used, tried too often or for another amount; an item is archived; the patient has no membership bank, or `bank_cents` is more than the visit comes to.',
        },
      }),
      requirePermission(ctx, 'visits.record'),
      jsonBody(VisitInputSchema),
      async (c) => {
        const user = c.var.user
        const ip = ctx.clientIp(c)
        const result = await checkout
          .record(user, c.req.valid('json'), ip)
          .catch((error) => auditRefusal(ctx, user, ip, error))
        return c.json(result.answer, 201)
      },
    )
    .get(
      '/:id',
      operation({
        summary: 'Read a visit',
        description: 'The visit with its lines as sold and the ledger entries it posted.',
        tag: 'Visits',
        responses: {
          200: { description: 'The visit.', json: VisitAnswerSchema },
          404: OTHER_PRACTICE,
        },
      }),
      requirePermission(ctx, 'visits.record'),
      idParams('id'),
      async (c) => {
        return c.json(await checkout.read(c.var.user, c.req.valid('param').id))
      },
    )
    .post(
      '/:id/undo',
      operation({
        summary: 'Undo a visit',
        description:
          "Within 10 minutes of the visit: reverses its entries (the redemption first, then the bonus and the earns), gives a redeemed promotion back to the claims, puts back what the visit used of the patient's membership (its included treatments and the bank's payment, `membership_bank_cents` after it) and sets the appointment back to scheduled. A second undo answers the same reversals and puts back nothing twice.",
        tag: 'Visits',
        responses: {
          201: {
            description: 'The reversing entries and the balance.',
            json: VisitUndoAnswerSchema,
          },
          404: OTHER_PRACTICE,
          409: "The 10 minutes have passed (a manager can reverse the entries from the patient's profile), or an earn of the visit was already spent.",
        },
      }),
      requirePermission(ctx, 'visits.record'),
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const result = await checkout.undo(c.var.user, id, ctx.clientIp(c))
        return c.json(
          {
            entries: result.entries,
            balance: result.balance,
            membership_bank_cents: result.membership_bank_cents,
          },
          201,
        )
      },
    )
}

/** `/patients/{id}/redemption-code` and `/patients/{id}/redemptions`. */
export function patientRedemptionRoutes(ctx: ServerContext) {
  const checkout = serverCheckout(ctx)

  return new Hono<AppEnv>()
    .post(
      '/:id/redemption-code',
      operation({
        summary: 'Text the patient a redemption code',
        description:
          'Sends the patient a 6-digit code by SMS for one amount: `points` (the SMS names them and their worth, e.g. 100 points ($10.00)) or `promotion_id` (it names the offer), or both for a visit that redeems points and an offer together, and `bank_cents` for what the membership bank pays ("$25.00 from the membership bank"), with the practice\'s name and the validity. The code redeems at most that amount, for this patient only, once: valid 10 minutes, 5 attempts. 30 seconds between codes and 5 an hour per patient.',
        tag: 'Visits',
        responses: {
          201: {
            description: 'The verification id to send back with the code.',
            json: RedemptionCodeAnswerSchema,
          },
          404: 'No patient or promotion has this id in your practice.',
          409: `The patient was merged into another record: "${MERGE_MESSAGES.mergedPatient}"`,
          422: 'The patient has no phone number.',
          429: TOO_MANY,
        },
      }),
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionCodeInputSchema),
      async (c) => {
        const { id } = c.req.valid('param')
        return c.json(
          await checkout.sendCode(c.var.user, id, c.req.valid('json'), ctx.clientIp(c)),
          201,
        )
      },
    )
    .post(
      '/:id/redemption-code/check',
      operation({
        summary: "Check the patient's code before confirming",
        description:
          "Whether the typed code is the patient's newest code, unused and unexpired, for this amount (`points` at most the code's, or its `promotion_id`). Spends one of the code's 5 attempts and uses nothing: the visit or redemption then uses it. 20 checks a minute per member.",
        tag: 'Visits',
        responses: {
          200: {
            description: 'The code is right for this amount.',
            json: RedemptionCodeCheckAnswerSchema,
          },
          404: OTHER_PRACTICE,
          422: 'The code is not correct, expired, used, tried too often, or for another amount.',
          429: TOO_MANY,
        },
      }),
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionCodeCheckSchema),
      async (c) => {
        // Each code has 5 attempts; this bounds how fast one desk can try codes at all.
        const limiter = createRateLimiter(ctx.rateLimitStore)
        refuseWhenLimited(
          await limiter.consume(
            `code-check:user:${c.var.user.id}`,
            CODE_CHECKS_PER_MEMBER,
            ctx.now().getTime(),
          ),
        )
        const { id } = c.req.valid('param')
        return c.json(await checkout.checkCodeFor(c.var.user, id, c.req.valid('json')))
      },
    )
    .post(
      '/:id/redemptions',
      operation({
        summary: 'Redeem points or a promotion',
        description:
          "Spends points for a reward, or a claimed promotion's points cost (then posts its bonus), with the same rules as a visit's redemption: the patient's code above the threshold or a manager's override with a reason; never below 0; the same idempotencyKey answers the same entry. An offer with value (an amount or a percentage off) is redeemed only at a visit (POST /visits): here it is refused with 409.",
        tag: 'Visits',
        responses: {
          201: {
            description: 'The entry, the bonus entry if any, and the balance.',
            json: RedemptionAnswerSchema,
          },
          403: "The patient's code is needed to redeem N points, or only a manager or an admin can redeem without it.",
          404: 'No patient or promotion has this id in your practice.',
          409: 'Not enough points: the balance is N. Or the promotion is not claimed or already redeemed, the patient archived or merged into another record, or the key used for another change.',
          422: 'The code is not correct, expired, used, tried too often or for another amount; the promotion has no points.',
        },
      }),
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionInputSchema),
      async (c) => {
        const user = c.var.user
        const ip = ctx.clientIp(c)
        const { id } = c.req.valid('param')
        const result = await checkout
          .redeem(user, id, c.req.valid('json'), { ip })
          .catch((error) => auditRefusal(ctx, user, ip, error))
        return c.json({ entry: result.entry, balance: result.balance, bonus: result.bonus }, 201)
      },
    )
}
