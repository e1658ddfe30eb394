import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import { TestTokenAnswerSchema } from '#domain/api-answers.ts'
import { TestCardBodySchema } from '#domain/sign-up/api.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { notFound } from '#server/http/errors.ts'
import { answeringPayment } from '#server/http/payment.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'

/**
 * `POST /api/payments/test-tokens`: the test payment gateway's tokeniser.
 * Exists only while payments run in test mode (no `STRIPE_SECRET_KEY`) outside production; otherwise
 * it answers 404 like any unknown path (also in production with ALLOW_TEST_PAYMENTS=true). Answers `{id: "tok_…"}`, or 400 with Stripe's wording for a card it cannot
 * use (`Your card number is incorrect.`). The card itself is kept in memory only, never stored or
 * logged.
 */
export function testTokenRoutes(ctx: ServerContext) {
  const testModeOnly = createMiddleware<AppEnv>(async (c, next) => {
    // Never in production, whatever the gateway: a card form that always succeeds would sign
    // practices up for free.
    if (ctx.config.production || ctx.payments.mode !== 'test' || !ctx.payments.tokeniser) {
      throw notFound(`Nothing answers ${c.req.method} ${c.req.path}.`)
    }
    await next()
  })
  return new Hono<AppEnv>().post(
    '/test-tokens',
    operation({
      summary: 'Tokenise a test card',
      description:
        "The test payment gateway's tokeniser, only while payments run in test mode (no Stripe key); otherwise 404. Follows Stripe's test cards. The card is never stored or logged.",
      tag: 'Sign-up',
      public: true,
      responses: {
        200: { description: 'The one-time card token.', json: TestTokenAnswerSchema },
        400: "A card the gateway cannot use, in Stripe's words.",
        402: 'The card was declined.',
        404: 'Payments are not in test mode.',
      },
    }),
    testModeOnly,
    jsonBody(TestCardBodySchema),
    async (c) => {
      const tokeniser = ctx.payments.tokeniser
      // Checked by testModeOnly; repeated for the type checker.
      if (!tokeniser) throw notFound()
      const card = c.req.valid('json')
      return c.json(await answeringPayment(() => tokeniser.createToken(card)))
    },
  )
}
