import { type Context, Hono } from 'hono'
import {
  APPOINTMENT_MESSAGES,
  APPOINTMENT_RANGE_MAX_DAYS,
  AppointmentChangeSchema,
  AppointmentDetailSchema,
  AppointmentInputSchema,
  AppointmentRangeQuerySchema,
} from '#domain/appointments.ts'
import { AppointmentSchema } from '#domain/practice-data.ts'
import { DAY_MS } from '#domain/time.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest } from '#server/http/errors.ts'
import { assertOwnPractice } from '#server/http/scope.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { OTHER_PRACTICE, operation } from '#server/openapi/operation.ts'
import { appointmentService, type Staff } from './service.ts'

/** `2026-03-01` → that day's first instant in UTC; anything that is not a real date → 400. */
function parseDay(raw: string, name = 'date'): Date {
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
  throw badRequest(`${name} must be a calendar date written YYYY-MM-DD.`, { [name]: raw })
}

/**
 * Appointments. The spec's `GET /appointments/{a}/{b}` is
 * one practice's day (`a` the practice id, `b` a UTC calendar day `YYYY-MM-DD`) and stays as it
 * was; `GET /appointments?from=&to=` answers a range of days with each appointment's patient and
 * procedure for the day and week views. Booking, rescheduling, cancelling and deleting are
 * the front desk's (`visits.record`); completing is done by a visit at checkout.
 */
export function appointmentRoutes(ctx: ServerContext) {
  const record = requirePermission(ctx, 'visits.record')
  const appointments = appointmentService(ctx.db, ctx.now)

  /** Who asks, for the audit events the service records with each change. */
  const staff = (c: Context<AppEnv>): Staff => ({ user: c.var.user, ip: ctx.clientIp(c) })

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'List the appointments of a range of days',
        description: `The practice's appointments starting from \`from\` (00:00 UTC, inclusive) to \`to\` (00:00 UTC, exclusive), at most ${APPOINTMENT_RANGE_MAX_DAYS} days, earliest first, each with its patient's name and phone and its procedure's name.`,
        tag: 'Appointments',
        query: AppointmentRangeQuerySchema,
        responses: {
          200: { description: 'The appointments.', json: AppointmentDetailSchema, array: true },
          400: `A date is not valid, or the range is empty or longer than ${APPOINTMENT_RANGE_MAX_DAYS} days.`,
        },
      }),
      record,
      async (c) => {
        const query = parseOr400(AppointmentRangeQuerySchema, c.req.query())
        const from = parseDay(query.from, 'from')
        const to = parseDay(query.to, 'to')
        const days = (to.getTime() - from.getTime()) / DAY_MS
        if (days < 1 || days > APPOINTMENT_RANGE_MAX_DAYS) {
          throw badRequest(APPOINTMENT_MESSAGES.range, { from: query.from, to: query.to })
        }
        const rows = await appointments.range(c.var.user.practice_id, from, to)
        return c.json(rows)
      },
    )
    .post(
      '/',
      operation({
        summary: 'Book an appointment',
        description:
          'Books a scheduled appointment for a patient of the practice who is not archived, with a procedure of the catalogue that is not archived (or none) and notes.',
        tag: 'Appointments',
        responses: {
          201: { description: 'The new appointment.', json: AppointmentDetailSchema },
          400: 'A field is not valid; `details.field` names it (the patient or the procedure is not bookable).',
        },
      }),
      record,
      jsonBody(AppointmentInputSchema),
      async (c) => {
        const input = c.req.valid('json')
        const row = await appointments.book(staff(c), input)
        return c.json(await appointments.detail(c.var.user.practice_id, row.id), 201)
      },
    )
    .get(
      '/:id',
      operation({
        summary: 'Read an appointment',
        description: "One appointment with its patient's name and phone and its procedure's name.",
        tag: 'Appointments',
        responses: {
          200: { description: 'The appointment.', json: AppointmentDetailSchema },
          404: 'No appointment has this id.',
        },
      }),
      record,
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const row = await appointments.own(c.var.user, id)
        return c.json(await appointments.detail(row.practice_id, row.id))
      },
    )
    .put(
      '/:id',
      operation({
        summary: 'Reschedule or change an appointment',
        description: 'Changes the start, the procedure or the notes of a scheduled appointment.',
        tag: 'Appointments',
        responses: {
          200: { description: 'The changed appointment.', json: AppointmentDetailSchema },
          404: 'No appointment has this id.',
          409: APPOINTMENT_MESSAGES.notScheduled,
        },
      }),
      record,
      idParams('id'),
      jsonBody(AppointmentChangeSchema),
      async (c) => {
        const { id } = c.req.valid('param')
        const current = await appointments.change(staff(c), id, c.req.valid('json'))
        return c.json(await appointments.detail(current.practice_id, id))
      },
    )
    .post(
      '/:id/cancel',
      operation({
        summary: 'Cancel an appointment',
        description:
          'Cancels a scheduled appointment (a cancelled one answers as it is). A completed appointment cannot be cancelled.',
        tag: 'Appointments',
        responses: {
          200: { description: 'The cancelled appointment.', json: AppointmentDetailSchema },
          404: 'No appointment has this id.',
          409: APPOINTMENT_MESSAGES.notScheduled,
        },
      }),
      record,
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const current = await appointments.cancel(staff(c), id)
        return c.json(await appointments.detail(current.practice_id, id))
      },
    )
    .get(
      '/:practiceId/:date',
      operation({
        summary: "List a day's appointments",
        description:
          "The practice's appointments starting on `date` in UTC (00:00 inclusive to the next 00:00 exclusive), earliest first.",
        tag: 'Appointments',
        path: {
          date: {
            description: 'A calendar day written `YYYY-MM-DD`.',
            schema: { type: 'string', format: 'date', maxLength: 10 },
          },
        },
        responses: {
          200: { description: 'The appointments.', json: AppointmentSchema, array: true },
          400: 'The practice id or the date is not valid.',
          404: OTHER_PRACTICE,
        },
      }),
      record,
      idParams('practiceId'),
      async (c) => {
        const { practiceId } = c.req.valid('param')
        const start = parseDay(c.req.param('date'))
        assertOwnPractice(c.var.user, practiceId)
        const rows = await appointments.day(practiceId, start, new Date(start.getTime() + DAY_MS))
        return c.json(rows)
      },
    )
    .delete(
      '/:id',
      operation({
        summary: 'Delete an appointment',
        description:
          "Removes a scheduled or cancelled appointment and answers the removed row. A completed one stays: its visit is reversed from the patient's profile instead.",
        tag: 'Appointments',
        responses: {
          200: { description: 'The removed appointment.', json: AppointmentSchema },
          404: 'No appointment has this id.',
          409: APPOINTMENT_MESSAGES.completedNoDelete,
        },
      }),
      record,
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const { notes: _, ...answer } = await appointments.remove(staff(c), id)
        return c.json(answer)
      },
    )
}
