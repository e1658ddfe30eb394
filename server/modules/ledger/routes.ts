/**
 * The points ledger over HTTP: a patient's entries, manual adjustments and
 * reversals. Every change goes through server/modules/ledger/service.ts, carries an idempotency key and
 * is written to the audit trail in its transaction (who, which patient id, how many points; never
 * a personal value).
 */
import { Hono } from 'hono'
import * as v from 'valibot'
import {
  AdjustmentInputSchema,
  LedgerPageSchema,
  LedgerPostingSchema,
  ReverseInputSchema,
} from '#domain/ledger.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import { notFound } from '#server/http/errors.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { OTHER_PRACTICE, operation, pageQueryDoc } from '#server/openapi/operation.ts'
import { entryAuthor, patientBalance, pointValueCents } from './queries.ts'
import { createLedger, type LedgerResult, toAnswer } from './service.ts'

const PageQuerySchema = v.object({
  page: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, 'page must be a number from 1.'),
      v.transform(Number),
      v.minValue(1, 'page must be a number from 1.'),
    ),
    '1',
  ),
  pageSize: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'pageSize must be a number from 1 to 100.'),
      v.transform(Number),
      v.minValue(1, 'pageSize must be a number from 1 to 100.'),
      v.maxValue(100, 'pageSize must be a number from 1 to 100.'),
    ),
    '25',
  ),
})

/** How far ahead "points expiring soon" looks. */
const EXPIRING_SOON_DAYS = 60

/** The patient of the user's practice, or 404 (another practice's id reads as unknown). */
async function ownPatient(ctx: ServerContext, user: AuthUser, id: number) {
  const row = await patientBalance(ctx.db, id)
  if (!row || row.practice_id !== user.practice_id) throw notFound('Patient not found.')
  return row
}

/** `/patients/{id}/ledger` and `/patients/{id}/adjustments`. */
export function patientLedgerRoutes(ctx: ServerContext) {
  const ledger = createLedger({ db: ctx.db, now: ctx.now })
  const auth = requireAuth(ctx)

  return new Hono<AppEnv>()
    .get(
      '/:id/ledger',
      operation({
        summary: "Read a patient's points ledger",
        description:
          'A page of the ledger entries, newest first, each with the staff member who made it and the entry that reversed it; the balance, its worth at the programme point value, and the points that lapse within 60 days.',
        tag: 'Points',
        query: pageQueryDoc('Entries'),
        responses: {
          200: { description: 'The page of entries and the balance.', json: LedgerPageSchema },
          404: OTHER_PRACTICE,
        },
      }),
      auth,
      requirePermission(ctx, 'patients.read'),
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const patient = await ownPatient(ctx, c.var.user, id)
        const query = parseOr400(PageQuerySchema, c.req.query())
        const [page, lots, pointValue] = await Promise.all([
          ledger.history(c.var.user.practice_id, patient.id, query),
          ledger.lots(patient.id),
          pointValueCents(ctx.db, c.var.user.practice_id),
        ])
        const horizon = ctx.now().getTime() + EXPIRING_SOON_DAYS * 86_400_000
        const expiringSoon = lots
          .filter((lot) => lot.expires_at && lot.expires_at.getTime() <= horizon)
          .map((lot) => ({
            points: lot.remaining,
            expires_at: lot.expires_at?.toISOString() ?? '',
          }))
        return c.json({
          ...page,
          balance: patient.points,
          balance_value_cents: patient.points * pointValue,
          expiring_soon: expiringSoon,
        })
      },
    )
    .post(
      '/:id/adjustments',
      operation({
        summary: "Adjust a patient's points",
        description:
          'Adds or takes points with a reason (Manager, Admin). The idempotency key makes a retry or a double click answer the entry already written. Taking points spends the oldest first and never below 0.',
        tag: 'Points',
        responses: {
          201: { description: 'The entry and the balance after it.', json: LedgerPostingSchema },
          404: OTHER_PRACTICE,
          409: 'Not enough points: the balance is N. (or the idempotency key was used for another change)',
        },
      }),
      auth,
      requirePermission(ctx, 'points.adjust'),
      idParams('id'),
      jsonBody(AdjustmentInputSchema),
      async (c) => {
        const { id } = c.req.valid('param')
        const input = c.req.valid('json')
        const user = c.var.user
        const result = await ledger.adjust({
          practiceId: user.practice_id,
          patientId: id,
          userId: user.id,
          points: input.points,
          reason: input.reason,
          idempotencyKey: input.idempotencyKey,
          audit: { ip: ctx.clientIp(c) },
        })
        return c.json(await posted(ctx, user, result), 201)
      },
    )
}

/** `/ledger/{entryId}/reverse`. */
export function ledgerRoutes(ctx: ServerContext) {
  const ledger = createLedger({ db: ctx.db, now: ctx.now })

  return new Hono<AppEnv>().post(
    '/:entryId/reverse',
    operation({
      summary: 'Reverse a ledger entry',
      description:
        'Cancels one entry, once, with a reason (Manager, Admin). An award whose points were spent is refused until the redemption is reversed; a reversed redemption gives its points back to the lots it took them from.',
      tag: 'Points',
      responses: {
        201: {
          description: 'The reversing entry and the balance after it.',
          json: LedgerPostingSchema,
        },
        404: 'No ledger entry has this id in your practice.',
        409: 'Already reversed, an expiry or reversal, already redeemed, or already expired.',
      },
    }),
    requireAuth(ctx),
    requirePermission(ctx, 'points.adjust'),
    idParams('entryId'),
    jsonBody(ReverseInputSchema),
    async (c) => {
      const { entryId } = c.req.valid('param')
      const input = c.req.valid('json')
      const user = c.var.user
      const result = await ledger.reverse({
        practiceId: user.practice_id,
        userId: user.id,
        entryId,
        reason: input.reason,
        idempotencyKey: input.idempotencyKey,
        audit: { ip: ctx.clientIp(c) },
      })
      return c.json(await posted(ctx, user, result), 201)
    },
  )
}

/** The answer of a posting (the ledger audited it with the posting; a replay records nothing). */
async function posted(ctx: ServerContext, user: AuthUser, result: LedgerResult) {
  const author = await entryAuthor(ctx.db, user.id)
  return { entry: toAnswer(result.entry, author), balance: result.balance }
}
