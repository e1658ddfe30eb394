/**
 * The reports module's reads: the activity log's events, in words (the trail holds ids only: the
 * names of the people, patients and entries are read for the events shown, three queries by id
 * whatever their number), and the rows of the CSV exports, a page at a time by keyset.
 */
import { and, asc, desc, eq, gt, gte, inArray, lt, type SQL, sql } from 'drizzle-orm'
import {
  type ActivityEvent,
  type ActivityQuery,
  activityRange,
  describeActivity,
} from '#domain/activity-log.ts'
import type { Database } from '#server/db/client.ts'
import { auditEvents, ledgerEntries, patients, users } from '#server/db/schema.ts'

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

/**
 * A page of the practice's events the filter selects, newest first, in words, with the number of
 * all that match.
 */
export async function activityPage(
  db: Database,
  practiceId: number,
  query: ActivityQuery,
): Promise<{ data: ActivityEvent[]; total: number }> {
  const rows = await db
    .select({ ...eventColumns, total: sql<number>`count(*) over ()`.as('total') })
    .from(auditEvents)
    .where(and(...conditions(practiceId, query)))
    .orderBy(desc(auditEvents.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
  let total = Number(rows[0]?.total ?? 0)
  if (rows.length === 0 && query.page > 1) {
    // Past the last page the window count has no row to ride on.
    const [count] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(auditEvents)
      .where(and(...conditions(practiceId, query)))
    total = count?.n ?? 0
  }
  return { data: await describe(db, practiceId, rows), total }
}

/**
 * At most `limit` of the events the filter selects, newest first from just below the event
 * `before` (from the newest when undefined), in words: the export's pages, by keyset.
 */
export async function activityBatch(
  db: Database,
  practiceId: number,
  query: ActivityQuery,
  page: { before: number | undefined; limit: number },
): Promise<ActivityEvent[]> {
  const where = conditions(practiceId, query)
  if (page.before !== undefined) where.push(lt(auditEvents.id, page.before))
  const rows = await db
    .select(eventColumns)
    .from(auditEvents)
    .where(and(...where))
    .orderBy(desc(auditEvents.id))
    .limit(page.limit)
  return rows.length === 0 ? [] : describe(db, practiceId, rows)
}

/** At most `limit` patients of the practice with an id above `after`, by id: the export's pages. */
export function patientExportPage(db: Database, practiceId: number, after: number, limit: number) {
  return db
    .select()
    .from(patients)
    .where(and(eq(patients.practice_id, practiceId), gt(patients.id, after)))
    .orderBy(asc(patients.id))
    .limit(limit)
}

/**
 * At most `limit` ledger entries of the practice with an id above `after`, by id, each with its
 * patient's name and its author's: the export's pages.
 */
export function ledgerExportPage(db: Database, practiceId: number, after: number, limit: number) {
  return db
    .select({
      entry: ledgerEntries,
      first_name: patients.first_name,
      last_name: patients.last_name,
      author_first: users.first_name,
      author_last: users.last_name,
    })
    .from(ledgerEntries)
    .innerJoin(patients, eq(patients.id, ledgerEntries.patient_id))
    .leftJoin(users, eq(users.id, ledgerEntries.created_by))
    .where(and(eq(ledgerEntries.practice_id, practiceId), gt(ledgerEntries.id, after)))
    .orderBy(asc(ledgerEntries.id))
    .limit(limit)
}
