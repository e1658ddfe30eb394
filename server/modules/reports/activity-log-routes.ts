/**
 * The activity log (Settings, Admin): `GET /audit` answers
 * a page of the practice's audit events, newest first, filtered by person, action and days, each
 * in words; `GET /audit/export.csv` streams the same filter as CSV. The trail holds ids only: the
 * names of the people, patients and entries are read for the page shown (three queries by id,
 * whatever the page), never stored in the trail. Opening the log and exporting it are themselves
 * events of the trail.
 */
import { Hono } from 'hono'
import { ActivityPageSchema, ActivityQuerySchema } from '#domain/activity-log.ts'
import { csvRow } from '#domain/csv.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { parseOr400 } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { activityBatch, activityPage } from './queries.ts'

/** Events read per query of the CSV export. */
const EXPORT_PAGE_SIZE = 500

/** The columns of the CSV export. */
export const ACTIVITY_COLUMNS = [
  'id',
  'created_at',
  'action',
  'summary',
  'actor_id',
  'actor',
  'patient_id',
  'ip',
] as const

/** `/audit`. */
export function activityLogRoutes(ctx: ServerContext) {
  const read = requirePermission(ctx, 'activity.read')
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get(
      '/',
      operation({
        summary: 'Read the activity log',
        description:
          "A page of the practice's audit events, newest first, each in words (`summary`), filtered by the person who acted (`actor`, a user id), the `action`, and `from` and `to` (a day `YYYY-MM-DD` in UTC, `to` inclusive; or an ISO instant, `to` exclusive, for the bounds of a local day). Names are read when the log is shown: the trail itself keeps ids only. Opening the log (its first page) is itself recorded; turning pages is not, so pages do not shift. Admin.",
        tag: 'Settings',
        query: ActivityQuerySchema,
        responses: {
          200: { description: 'The page and the total that match.', json: ActivityPageSchema },
          400: 'A query parameter is not valid (a known action, dates as YYYY-MM-DD, the start not after the end).',
        },
      }),
      read,
      async (c) => {
        const user = c.var.user
        const query = parseOr400(ActivityQuerySchema, c.req.query())
        // Opening the log (its first page, whatever the filter) is on record first, so the page
        // shown includes it. Turning pages is not: a new event on top would shift every page by one.
        if (query.page === 1) {
          await ctx.audit.record({
            action: 'activity.viewed',
            userId: user.id,
            practiceId: user.practice_id,
            ip: ctx.clientIp(c),
            details: {
              actor: query.actor ?? null,
              filter_action: query.action ?? null,
              from: query.from ?? null,
              to: query.to ?? null,
            },
          })
        }
        const { data, total } = await activityPage(ctx.db, user.practice_id, query)
        return c.json({
          data,
          total,
          page: query.page,
          pageSize: query.pageSize,
        })
      },
    )
    .get(
      '/export.csv',
      operation({
        summary: 'Export the activity log as CSV',
        description:
          'The events the same filter selects, newest first, streamed a page at a time, each with its sentence. Cells a spreadsheet would run as formulas start with an apostrophe. Audited. Admin.',
        tag: 'Settings',
        query: ActivityQuerySchema,
        responses: {
          200: { description: 'The CSV file (attachment).', media: ['text/csv'] },
          400: 'A query parameter is not valid.',
        },
      }),
      read,
      async (c) => {
        const user = c.var.user
        const query = parseOr400(ActivityQuerySchema, c.req.query())
        await ctx.audit.record({
          action: 'report.exported',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { report: 'activity' },
        })
        const encoder = new TextEncoder()
        // Newest first by keyset (`id < last`), a page at a time, as the other exports do.
        let before: number | undefined
        let started = false
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (!started) {
              started = true
              controller.enqueue(encoder.encode(csvRow(ACTIVITY_COLUMNS)))
              return
            }
            const events = await activityBatch(ctx.db, user.practice_id, query, {
              before,
              limit: EXPORT_PAGE_SIZE,
            })
            if (events.length === 0) {
              controller.close()
              return
            }
            controller.enqueue(
              encoder.encode(
                events
                  .map((e) =>
                    csvRow([
                      e.id,
                      e.created_at,
                      e.action,
                      e.summary,
                      e.actor?.id ?? null,
                      e.actor ? `${e.actor.first_name} ${e.actor.last_name}`.trim() : null,
                      e.patient_id,
                      e.ip,
                    ]),
                  )
                  .join(''),
              ),
            )
            before = events[events.length - 1]?.id
            if (events.length < EXPORT_PAGE_SIZE) controller.close()
          },
        })
        return c.body(body, 200, {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="activity-${ctx.now().toISOString().slice(0, 10)}.csv"`,
          'Cache-Control': 'no-store',
        })
      },
    )
}
