import { and, asc, eq, gte, lt } from 'drizzle-orm'
import { Hono } from 'hono'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { appointments } from '#server/db/schema.ts'
import { badRequest } from '#server/http/errors.ts'
import { assertOwnPractice, ownRow } from '#server/http/scope.ts'
import { idParams } from '#server/http/validate.ts'

const appointmentColumns = {
  id: appointments.id,
  practice_id: appointments.practice_id,
  patient_id: appointments.patient_id,
  procedure_id: appointments.procedure_id,
  starts_at: appointments.starts_at,
  status: appointments.status,
}

/** `2026-03-01` → that day's first instant in UTC; anything that is not a real date → 400. */
function parseDay(raw: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw)
  if (match) {
    const [, year, month, day] = match.map(Number) as [number, number, number, number]
    const start = new Date(Date.UTC(year, month - 1, day))
    if (
      start.getUTCFullYear() === year &&
      start.getUTCMonth() === month - 1 &&
      start.getUTCDate() === day
    ) {
      return start
    }
  }
  throw badRequest('date must be a calendar date written YYYY-MM-DD.', { date: raw })
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Appointments (spec section 7). Our reading of `GET /appointments/{a}/{b}`: `a` is the practice
 * id and `b` a calendar day `YYYY-MM-DD`; the answer is that practice's appointments starting on
 * that day in UTC (from 00:00 inclusive to the next 00:00 exclusive), earliest first.
 * `DELETE /appointments/{id}` removes one and answers the removed row.
 */
export function appointmentRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/:practiceId/:date',
      requirePermission(ctx, 'visits.record'),
      idParams('practiceId'),
      async (c) => {
        const { practiceId } = c.req.valid('param')
        const start = parseDay(c.req.param('date'))
        assertOwnPractice(c.var.user, practiceId)
        const rows = await ctx.db
          .select(appointmentColumns)
          .from(appointments)
          .where(
            and(
              eq(appointments.practice_id, practiceId),
              gte(appointments.starts_at, start),
              lt(appointments.starts_at, new Date(start.getTime() + DAY_MS)),
            ),
          )
          .orderBy(asc(appointments.starts_at), asc(appointments.id))
        return c.json(rows)
      },
    )
    .delete('/:id', requirePermission(ctx, 'visits.record'), idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      const [row] = await ctx.db
        .select(appointmentColumns)
        .from(appointments)
        .where(eq(appointments.id, id))
        .limit(1)
      const appointment = ownRow(c.var.user, row, 'Appointment')
      await ctx.db.delete(appointments).where(eq(appointments.id, appointment.id))
      return c.json(appointment)
    })
}
