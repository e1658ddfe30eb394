import { Hono } from 'hono'
import { describeEntry, type LedgerKind } from '#domain/ledger.ts'
import { ActivitySchema } from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { ledgerEntriesOf, recordedActivities } from './queries.ts'
import { findPatient } from './routes.ts'

/**
 * `GET /activities/patient/{id}`: a patient's activity, newest first (spec section 7): the
 * recorded activities and every ledger entry in words ("Points adjusted by +500: birthday"), each
 * ledger line with `kind` `ledger.<kind>` and the entry's signed points.
 */
export function activityRoutes(ctx: ServerContext) {
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
    async (c) => {
      const { id } = c.req.valid('param')
      ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
      const [recorded, entries] = await Promise.all([
        recordedActivities(ctx.db, id),
        ledgerEntriesOf(ctx.db, id),
      ])
      const fromLedger = entries.map((entry) => ({
        id: entry.id,
        practice_id: entry.practice_id,
        patient_id: entry.patient_id,
        kind: `ledger.${entry.kind}`,
        description: describeEntry({ ...entry, kind: entry.kind as LedgerKind }),
        points: entry.points,
        created_at: entry.created_at,
      }))
      const rows = [...recorded, ...fromLedger].sort(
        (a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id,
      )
      return c.json(rows)
    },
  )
}
