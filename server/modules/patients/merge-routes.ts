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
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { operation, pageQueryDoc } from '#server/openapi/operation.ts'
import { createPatientMerge } from './merge-service.ts'
import { actorOf } from './routes.ts'

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
  const merges = createPatientMerge(ctx)

  return new Hono<AppEnv>()
    .get(
      '/duplicates',
      operation({
        summary: 'List possible duplicate patients',
        description:
          "Pairs of the practice's active patients who share a phone (stored in E.164, so equal numbers are equal text) or an e-mail (compared without case), each with the reasons, computed when asked so the list is always current; ordered by the first patient's name, paged (`pageSize` up to 100, default 25). Manager, Admin.",
        tag: 'Patients',
        query: pageQueryDoc('Pairs'),
        responses: {
          200: { description: 'The page of pairs.', json: DuplicatePageSchema },
        },
      }),
      auth,
      merge,
      async (c) => {
        const { page, pageSize } = parseOr400(DuplicateQuerySchema, c.req.query())
        const { data, total } = await merges.duplicates(c.var.user.practice_id, { page, pageSize })
        return c.json({ data, total, page, pageSize })
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
        const preview = await merges.preview(c.var.user.practice_id, id, mergedId)
        return c.json(preview)
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
        const answer = await merges.merge(actorOf(ctx, c), { keptId: id, mergedId, idempotencyKey })
        return c.json(answer, answer.replayed ? 200 : 201)
      },
    )
}
