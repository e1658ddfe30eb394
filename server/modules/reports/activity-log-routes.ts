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
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { parseOr400 } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'
import { answerCsvExport, csvStream, EXPORT_PAGE_SIZE } from './csv-export-routes.ts'
import { activityBatch, activityPage } from './queries.ts'

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
        // Newest first by keyset (`id < last`), a page at a time, as the other exports do.
        const body = csvStream(ACTIVITY_COLUMNS, async (before) => {
          const events = await activityBatch(ctx.db, user.practice_id, query, {
            before,
            limit: EXPORT_PAGE_SIZE,
          })
          return events.map((e) => ({
            id: e.id,
            cells: [
              e.id,
              e.created_at,
              e.action,
              e.summary,
              e.actor?.id ?? null,
              e.actor ? `${e.actor.first_name} ${e.actor.last_name}`.trim() : null,
              e.patient_id,
              e.ip,
            ],
          }))
        })
        return answerCsvExport(ctx, c, {
          report: 'activity',
          filename: `activity-${ctx.now().toISOString().slice(0, 10)}.csv`,
          body,
        })
      },
    )
}
