import { Hono } from 'hono'
import { DevUnsubscribeIdSchema, OutboxAnswerSchema } from '#domain/practice-data.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { notFound } from '#server/http/errors.ts'
import { idParams } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { fromLoopback } from '#server/security/loopback.ts'
import { latestOutboxMessages, unsubscribeIdOf } from './queries.ts'

/**
 * Development helpers, mounted only when not in production: `GET /dev/outbox` lists the e-mails
 * and SMS codes the outbox services recorded, newest first (domain `OutboxMessageSchema`). It
 * answers only clients on the loopback interface (the socket's peer address, never a header):
 * the outbox holds reset links and codes, so anyone else reading it could take an account over.
 * Others get the 404 of any unknown path.
 *
 * `GET /dev/patients/:id/unsubscribe-id` answers a patient's unsubscribe token, on the same
 * terms: staff answers never carry it, and journeys and the bench that open an
 * unsubscribe link need one without sending an e-mail first.
 */
export function devRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .get(
      '/outbox',
      operation({
        summary: 'Read the development outbox',
        description:
          'The e-mails and SMS codes recorded instead of sent, newest first. Served only when `NODE_ENV` is not `production`.',
        tag: 'Operations',
        public: true,
        responses: { 200: { description: 'The messages.', json: OutboxAnswerSchema } },
      }),
      async (c) => {
        if (!fromLoopback(c)) throw notFound(`Nothing answers ${c.req.method} ${c.req.path}.`)
        // What is queued is as good as sent for a reader of the outbox: deliver it first.
        await ctx.outbound.drain()
        const messages = await latestOutboxMessages(ctx.db)
        return c.json({ messages })
      },
    )
    .get(
      '/patients/:id/unsubscribe-id',
      operation({
        summary: "Read a patient's unsubscribe token (development)",
        description:
          "The token of the patient's unsubscribe link, which no staff answer carries. Served only when `NODE_ENV` is not `production`, and only to the loopback interface.",
        tag: 'Operations',
        public: true,
        responses: {
          200: { description: 'The token.', json: DevUnsubscribeIdSchema },
          400: 'The id is not valid.',
          404: 'No patient has this id.',
        },
      }),
      idParams('id'),
      async (c) => {
        if (!fromLoopback(c)) throw notFound(`Nothing answers ${c.req.method} ${c.req.path}.`)
        const row = await unsubscribeIdOf(ctx.db, c.req.valid('param').id)
        if (!row) throw notFound('No patient has this id.')
        return c.json(row)
      },
    )
}
