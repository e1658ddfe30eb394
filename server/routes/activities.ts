import { desc, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import { requireAuth } from '#server/auth/jwt.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { activities } from '#server/db/schema.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams } from '#server/http/validate.ts'
import { findPatient } from './patients.ts'

/** `GET /activities/patient/{id}`: a patient's activity, newest first (spec section 7). */
export function activityRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>().use(requireAuth(ctx)).get('/patient/:id', idParams('id'), async (c) => {
    const { id } = c.req.valid('param')
    ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
    const rows = await ctx.db
      .select({
        id: activities.id,
        practice_id: activities.practice_id,
        patient_id: activities.patient_id,
        kind: activities.kind,
        description: activities.description,
        points: activities.points,
        created_at: activities.created_at,
      })
      .from(activities)
      .where(eq(activities.patient_id, id))
      .orderBy(desc(activities.created_at), desc(activities.id))
    return c.json(rows)
  })
}
