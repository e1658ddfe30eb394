import { and, eq, inArray, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { IdempotencyKeySchema } from '#domain/ledger.ts'
import {
  DuplicatePageSchema,
  DuplicateQuerySchema,
  IDEMPOTENCY_HEADER,
  MERGE_MESSAGES,
  MergeAnswerSchema,
  MergeInputSchema,
  MergePreviewSchema,
} from '#domain/patient-merge.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { patients } from '#server/db/schema.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { createPatientMerge } from './merge-service.ts'
import { findPatient } from './routes.ts'

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows

/**
 * The pairs of active patients of the practice who share a phone or an e-mail (without case), one
 * row per pair and reason, as the opening of a `with` (the caller closes its parenthesis). Two
 * equality joins, each answered by an index or a hash join, not one join on "phone or e-mail",
 * which only a nested loop over every pair of the practice could answer.
 */
const pairsOf = (practiceId: number) => sql`pairs as (
          select a.id as first_id, b.id as second_id, 'phone' as reason
          from patients a
          join patients b on b.practice_id = a.practice_id and b.phone = a.phone and b.id > a.id
          where a.practice_id = ${practiceId} and a.archived_at is null and a.phone is not null
            and b.archived_at is null
          union all
          select a.id, b.id, 'email'
          from patients a
          join patients b
            on b.practice_id = a.practice_id and lower(b.email) = lower(a.email) and b.id > a.id
          where a.practice_id = ${practiceId} and a.archived_at is null and a.email is not null
            and b.archived_at is null`

/**
 * Possible duplicates and merging two patients, Manager and Admin:
 * `GET /patients/duplicates` pairs the practice's active patients who share a phone or an e-mail,
 * computed when asked; `GET /patients/{id}/merge/{mergedId}` previews merging `mergedId` into `id`
 * and `POST` the same path does it (docs/decisions/016-merging-patients.md). Mounted before the
 * patient routes, whose `/{id}` would otherwise read `duplicates` as an id.
 */
export function patientMergeRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const merge = requirePermission(ctx, 'patients.merge')
  const merges = createPatientMerge({ db: ctx.db, now: ctx.now })

  return new Hono<AppEnv>()
    .get(
      '/duplicates',
      operation({
        summary: 'List possible duplicate patients',
        description:
          "Pairs of the practice's active patients who share a phone (stored in E.164, so equal numbers are equal text) or an e-mail (compared without case), each with the reasons, computed when asked so the list is always current; ordered by the first patient's name, paged (`pageSize` up to 100, default 25). Manager, Admin.",
        tag: 'Patients',
        query: {
          page: {
            description: 'Page number, from 1.',
            schema: { type: 'string', pattern: '^\\d{1,6}$' },
          },
          pageSize: {
            description: 'Pairs per page, 1 to 100 (default 25).',
            schema: { type: 'string', pattern: '^\\d{1,3}$' },
          },
        },
        responses: {
          200: { description: 'The page of pairs.', json: DuplicatePageSchema },
        },
      }),
      auth,
      merge,
      async (c) => {
        const { page, pageSize } = parseOr400(DuplicateQuerySchema, c.req.query())
        const practiceId = c.var.user.practice_id
        const result = await ctx.db.execute(sql`
        with ${pairsOf(practiceId)}
        ), grouped as (
          select first_id, second_id,
            bool_or(reason = 'phone') as same_phone, bool_or(reason = 'email') as same_email
          from pairs group by first_id, second_id
        )
        select g.first_id, g.second_id, g.same_phone, g.same_email, count(*) over () as total
        from grouped g join patients p on p.id = g.first_id
        order by lower(p.last_name), lower(p.first_name), g.first_id, g.second_id
        limit ${pageSize} offset ${(page - 1) * pageSize}`)
        const pairs = rowsOf<{
          first_id: number
          second_id: number
          same_phone: boolean
          same_email: boolean
          total: number | string
        }>(result)
        const ids = [...new Set(pairs.flatMap((p) => [Number(p.first_id), Number(p.second_id)]))]
        const people =
          ids.length === 0
            ? []
            : await ctx.db
                .select({
                  id: patients.id,
                  first_name: patients.first_name,
                  last_name: patients.last_name,
                  email: patients.email,
                  phone: patients.phone,
                  points: patients.points,
                  created_at: patients.created_at,
                })
                .from(patients)
                .where(and(eq(patients.practice_id, practiceId), inArray(patients.id, ids)))
        const byId = new Map(
          people.map((p) => [p.id, { ...p, created_at: p.created_at.toISOString() }]),
        )
        let total = pairs[0] ? Number(pairs[0].total) : 0
        if (!pairs[0] && page > 1) {
          // Past the last page: the count still says how many pairs there are.
          const all = await ctx.db.execute(sql`
          with ${pairsOf(practiceId)}
          ) select count(distinct (first_id, second_id))::int as n from pairs`)
          total = Number(rowsOf<{ n: number }>(all)[0]?.n ?? 0)
        }
        c.header('Cache-Control', 'no-store')
        return c.json({
          data: pairs.flatMap((p) => {
            const first = byId.get(Number(p.first_id))
            const second = byId.get(Number(p.second_id))
            if (!first || !second) return []
            const reasons = [
              ...(p.same_phone ? (['phone'] as const) : []),
              ...(p.same_email ? (['email'] as const) : []),
            ]
            return [{ first, second, reasons }]
          }),
          total,
          page,
          pageSize,
        })
      },
    )
    .get(
      '/:id/merge/:mergedId',
      operation({
        summary: 'Preview merging two patients',
        description:
          'What merging patient `mergedId` into patient `id` (the one kept) would do, changing nothing: how many ledger entries, visits, appointments, claimed offers, sent offers and other rows would move, the balance after (the sum of both ledgers), the contact fields filled from the merged patient (only where the kept one has none) and the consents after (each on only when both records had it on). Manager, Admin.',
        tag: 'Patients',
        responses: {
          200: { description: 'The preview.', json: MergePreviewSchema },
          400: `The two ids are the same patient: "${MERGE_MESSAGES.samePatient}"`,
          404: `Either id is not a patient of your practice: "${MERGE_MESSAGES.notFound}"`,
          409: 'Either patient is archived or was already merged (the sentence names them).',
        },
      }),
      auth,
      merge,
      idParams('id', 'mergedId'),
      async (c) => {
        const { id, mergedId } = c.req.valid('param')
        const practiceId = c.var.user.practice_id
        const preview = await merges.preview(practiceId, id, mergedId)
        const [kept, merged] = await Promise.all([
          findPatient(ctx.db, id),
          findPatient(ctx.db, mergedId),
        ])
        c.header('Cache-Control', 'no-store')
        return c.json({ kept, merged, ...preview })
      },
    )
    .post(
      '/:id/merge/:mergedId',
      operation({
        summary: 'Merge two patients',
        description:
          'Merges patient `mergedId` into patient `id`, in one transaction holding both patients: every row of the merged patient (ledger entries with their allocations, visits, appointments, claims, sent offers, codes, reminders, import rows…) moves to the kept patient, whose balance becomes the sum of both ledgers and whose empty e-mail, phone and birth date are filled from the merged one; a consent stays on only when both records had it on. The merged patient is archived with `merged_into_id` and leaves every list. Idempotent: the same pair again, or the same `idempotencyKey` (or `Idempotency-Key` header), answers the recorded merge with `replayed` and moves nothing. Manager, Admin. Audited, naming both patients.',
        tag: 'Patients',
        responses: {
          200: {
            description: 'This merge was already done: what it did.',
            json: MergeAnswerSchema,
          },
          201: { description: 'The merge and what it moved.', json: MergeAnswerSchema },
          400: `The two ids are the same patient: "${MERGE_MESSAGES.samePatient}"`,
          404: `Either id is not a patient of your practice: "${MERGE_MESSAGES.notFound}"`,
          409: `Either patient is archived or was already merged into another, or the key was used for another merge: "${MERGE_MESSAGES.keyReused}"`,
        },
      }),
      auth,
      merge,
      idParams('id', 'mergedId'),
      jsonBody(MergeInputSchema),
      async (c) => {
        const { id, mergedId } = c.req.valid('param')
        const header = c.req.header(IDEMPOTENCY_HEADER)
        const idempotencyKey =
          c.req.valid('json').idempotencyKey ??
          (header === undefined ? undefined : parseOr400(IdempotencyKeySchema, header))
        const result = await merges.merge({
          practiceId: c.var.user.practice_id,
          keptId: id,
          mergedId,
          userId: c.var.user.id,
          idempotencyKey,
        })
        if (!result.replayed) {
          await ctx.audit.record({
            action: 'patient.merged',
            userId: c.var.user.id,
            practiceId: c.var.user.practice_id,
            ip: ctx.clientIp(c),
            details: {
              patient_id: result.keptId,
              merged_patient_id: result.mergedId,
              merge_id: result.id,
              ...result.moved,
            },
          })
        }
        const [kept, merged] = await Promise.all([
          findPatient(ctx.db, result.keptId),
          findPatient(ctx.db, result.mergedId),
        ])
        return c.json(
          {
            id: result.id,
            kept,
            merged,
            moved: result.moved,
            created_at: result.createdAt.toISOString(),
            replayed: result.replayed,
          },
          result.replayed ? 200 : 201,
        )
      },
    )
}
