import { Hono } from 'hono'
import { ActivitySchema } from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { idParams } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { createPatients } from './service.ts'

/**
 * `GET /activities/patient/{id}`: a patient's activity, newest first: the
 * recorded activities and every ledger entry in words ("Points adjusted by +500: birthday"), each
 * ledger line with `kind` `ledger.<kind>` and the entry's signed points.
 */
export function activityRoutes(ctx: ServerContext) {
  const patients = createPatients(ctx)
  return new Hono<AppEnv>().use(requireAuth(ctx)).get(
    '/patient/:id',
    operation({
      summary: "List a patient's activity",
      description: "The patient's activity (claims, redemptions, visits), newest first.",
      tag: 'Patients',
      responses: {
        200: { description: 'The activity.', json: ActivitySchema, array: true },
        404: 'No patient has this id.',
      },
    }),
    requirePermission(ctx, 'patients.read'),
    idParams('id'),
    async (c) => c.json(await patients.activity(c.var.user.practice_id, c.req.valid('param').id)),
  )
}
