/**
 * The activity log (Settings, Admin; PORTAL.md sections 4 and 7, issue 19): `GET /audit` answers
 * a page of the practice's audit events, newest first, filtered by person, action and days, each
 * in words; `GET /audit/export.csv` streams the same filter as CSV. The trail holds ids only: the
 * names of the people, patients and entries are read for the page shown (three queries by id,
 * whatever the page), never stored in the trail. Opening the log and exporting it are themselves
 * events of the trail.
 */
import { and, desc, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import {
  type ActivityEvent,
  ActivityPageSchema,
  type ActivityQuery,
  ActivityQuerySchema,
  activityRange,
  describeActivity,
} from '#domain/activity-log.ts'
import { csvRow } from '#domain/csv.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import type { Database } from '#server/db/client.ts'
import { auditEvents, ledgerEntries, patients, users } from '#server/db/schema.ts'
import { parseOr400 } from '#server/http/validate.ts'
import { operation } from '#server/openapi/operation.ts'

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

/** The filter of a query as SQL conditions on the practice's events. */
function conditions(practiceId: number, query: ActivityQuery): SQL[] {
  const where: SQL[] = [eq(auditEvents.practice_id, practiceId)]
  if (query.actor !== undefined) where.push(eq(auditEvents.user_id, query.actor))
  if (query.action !== undefined) where.push(eq(auditEvents.action, query.action))
  const { start, end } = activityRange(query.from, query.to)
  if (start) where.push(gte(auditEvents.created_at, start))
  if (end) where.push(lt(auditEvents.created_at, end))
  return where
}

type EventRow = {
  id: number
  created_at: Date
  action: string
  user_id: number | null
  ip: string | null
  details: Record<string, unknown> | null
}

const idIn = (details: Record<string, unknown> | null, key: string) => {
  const value = details?.[key]
  const id =
    typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN
  return Number.isSafeInteger(id) && id > 0 ? id : null
}

const fullName = (row: { first_name: string | null; last_name: string | null }) =>
  `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim()

/**
 * The events in words: the people, patients and ledger entries they name are read by id, in the
 * practice only (an id of another practice, which the trail never holds, would read as unknown).
 */
async function describe(
  db: Database,
  practiceId: number,
  rows: EventRow[],
): Promise<ActivityEvent[]> {
  const userIds = new Set<number>()
  const patientIds = new Set<number>()
  const entryIds = new Set<number>()
  for (const row of rows) {
    if (row.user_id !== null) userIds.add(row.user_id)
    const member = idIn(row.details, 'member')
    if (member !== null) userIds.add(member)
    const patient = idIn(row.details, 'patient_id')
    if (patient !== null) patientIds.add(patient)
    const merged = idIn(row.details, 'merged_patient_id')
    if (merged !== null) patientIds.add(merged)
    const entry = idIn(row.details, 'entry_id')
    if (entry !== null) entryIds.add(entry)
  }
  const [people, patientRows, entries] = await Promise.all([
    userIds.size
      ? db
          .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
          .from(users)
          .where(and(inArray(users.id, [...userIds]), eq(users.practice_id, practiceId)))
      : [],
    patientIds.size
      ? db
          .select({
            id: patients.id,
            first_name: patients.first_name,
            last_name: patients.last_name,
          })
          .from(patients)
          .where(and(inArray(patients.id, [...patientIds]), eq(patients.practice_id, practiceId)))
      : [],
    entryIds.size
      ? db
          .select({
            id: ledgerEntries.id,
            kind: ledgerEntries.kind,
            points: ledgerEntries.points,
            reason: ledgerEntries.reason,
            patient_id: ledgerEntries.patient_id,
          })
          .from(ledgerEntries)
          .where(
            and(
              inArray(ledgerEntries.id, [...entryIds]),
              eq(ledgerEntries.practice_id, practiceId),
            ),
          )
      : [],
  ])
  const person = new Map(people.map((p) => [p.id, p]))
  const patientName = new Map(patientRows.map((p) => [p.id, fullName(p)]))
  const entry = new Map(entries.map((e) => [e.id, e]))
  return rows.map((row) => {
    const details = row.details ?? {}
    const actor = row.user_id === null ? undefined : person.get(row.user_id)
    const posted = entry.get(idIn(details, 'entry_id') ?? 0)
    const patientId = idIn(details, 'patient_id') ?? posted?.patient_id ?? null
    const member = person.get(idIn(details, 'member') ?? 0)
    const mergedPatientId = idIn(details, 'merged_patient_id')
    return {
      id: row.id,
      created_at: row.created_at.toISOString(),
      action: row.action,
      summary: describeActivity(row.action, details, {
        actor: actor ? fullName(actor) : null,
        patient: patientId === null ? null : (patientName.get(patientId) ?? null),
        member: member ? fullName(member) : null,
        mergedPatient: mergedPatientId === null ? null : (patientName.get(mergedPatientId) ?? null),
        entry: posted ? { kind: posted.kind, points: posted.points, reason: posted.reason } : null,
      }),
      actor: actor
        ? { id: actor.id, first_name: actor.first_name ?? '', last_name: actor.last_name ?? '' }
        : null,
      patient_id: patientId,
      ip: row.ip,
    }
  })
}

const eventColumns = {
  id: auditEvents.id,
  created_at: auditEvents.created_at,
  action: auditEvents.action,
  user_id: auditEvents.user_id,
  ip: auditEvents.ip,
  details: auditEvents.details,
}

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
        const rows = await ctx.db
          .select({ ...eventColumns, total: sql<number>`count(*) over ()`.as('total') })
          .from(auditEvents)
          .where(and(...conditions(user.practice_id, query)))
          .orderBy(desc(auditEvents.id))
          .limit(query.pageSize)
          .offset((query.page - 1) * query.pageSize)
        let total = Number(rows[0]?.total ?? 0)
        if (rows.length === 0 && query.page > 1) {
          // Past the last page the window count has no row to ride on.
          const [count] = await ctx.db
            .select({ n: sql<number>`count(*)::int` })
            .from(auditEvents)
            .where(and(...conditions(user.practice_id, query)))
          total = count?.n ?? 0
        }
        return c.json({
          data: await describe(ctx.db, user.practice_id, rows),
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
            const where = conditions(user.practice_id, query)
            if (before !== undefined) where.push(lt(auditEvents.id, before))
            const rows = await ctx.db
              .select(eventColumns)
              .from(auditEvents)
              .where(and(...where))
              .orderBy(desc(auditEvents.id))
              .limit(EXPORT_PAGE_SIZE)
            if (rows.length === 0) {
              controller.close()
              return
            }
            const events = await describe(ctx.db, user.practice_id, rows)
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
            before = rows[rows.length - 1]?.id
            if (rows.length < EXPORT_PAGE_SIZE) controller.close()
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
