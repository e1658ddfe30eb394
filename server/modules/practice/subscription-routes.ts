import { Hono } from 'hono'
import { ChangeCardBodySchema, SubscriptionAnswerSchema } from '#domain/subscription.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { answeringPayment } from '#server/http/payment.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { subscriptionService } from './subscription-service.ts'

/**
 * The practice's subscription in Settings, mounted under
 * `/api/practice/subscription`, Admin only (`subscription.manage`):
 * - `GET /`: the plans and term chosen at sign-up, the card on file, the next renewal and its
 *   amount after the coupon, and whether it is set to end; `status: 'none'` when the payment
 *   provider has no subscription for the practice (the plans then come from the sign-up's choice).
 * - `POST /cancel`: ends the subscription at the end of the term already paid, as the Terms say.
 * - `POST /resume`: undoes that while the term lasts; 409 once it ended.
 * - `PUT /card {token}`: makes a new card the one on file; a refused card answers 402 with the
 *   provider's message, as at sign-up.
 * Each change is an audit event the activity log reads in words; a repeat that changes nothing
 * (a double click) records nothing and answers the same.
 */
export function subscriptionRoutes(ctx: ServerContext) {
  const manage = requirePermission(ctx, 'subscription.manage')
  const subscription = subscriptionService(ctx)

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'Read the subscription',
        description:
          "Admin. The plans and term chosen at sign-up, the card on file (brand, last four digits, expiry), the end of the term already paid, the next renewal and its amount in cents after the coupon (a coupon of duration `once` applied to the first term only), and whether it is set to end (`cancels_at`). `status: 'none'` when the payment service has no subscription for the practice.",
        tag: 'Settings',
        responses: {
          200: { description: 'The subscription.', json: SubscriptionAnswerSchema },
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      async (c) => c.json(await answeringPayment(() => subscription.read(c.var.user.practice_id))),
    )
    .post(
      '/cancel',
      operation({
        summary: 'End the subscription at the end of the term',
        description:
          'Admin. The subscription ends when the term already paid ends, as the Terms say; nothing is refunded and nothing more is charged. Audited; a repeat changes nothing and answers the same.',
        tag: 'Settings',
        responses: {
          200: {
            description: 'The subscription, with `cancels_at`.',
            json: SubscriptionAnswerSchema,
          },
          409: 'The practice has no subscription, or it has already ended.',
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      async (c) =>
        c.json(await answeringPayment(() => subscription.setCancel(actorOf(ctx, c), true))),
    )
    .post(
      '/resume',
      operation({
        summary: 'Keep the subscription',
        description:
          'Admin. Undoes the end at the term end while the term lasts: the subscription renews again. Audited; a repeat changes nothing and answers the same.',
        tag: 'Settings',
        responses: {
          200: {
            description: 'The subscription, with `renews_at`.',
            json: SubscriptionAnswerSchema,
          },
          409: 'The practice has no subscription, or it has already ended.',
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      async (c) =>
        c.json(await answeringPayment(() => subscription.setCancel(actorOf(ctx, c), false))),
    )
    .put(
      '/card',
      operation({
        summary: 'Change the card on file',
        description:
          'Admin. `token` is a one-time card token, made as at sign-up (Stripe.js, or `POST /payments/test-tokens` with the test gateway). The card is checked by the payment service and becomes the one the next renewals are charged to. Audited with the brand and last four digits.',
        tag: 'Settings',
        responses: {
          200: {
            description: 'The subscription with the new card.',
            json: SubscriptionAnswerSchema,
          },
          400: 'The token is not valid, or was used already.',
          402: "The card was refused: the provider's message.",
          409: 'The practice has no subscription.',
          502: 'The payment service could not be reached.',
        },
      }),
      manage,
      jsonBody(ChangeCardBodySchema),
      async (c) => {
        const { token } = c.req.valid('json')
        return c.json(await answeringPayment(() => subscription.changeCard(actorOf(ctx, c), token)))
      },
    )
}
