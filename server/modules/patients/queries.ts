/** The patients module's reads: the answers' columns, the lists, the search and the counts. */
import {
  and,
  asc,
  desc,
  eq,
  inArray,
  isNotNull,
  isNull,
  like,
  or,
  type SQL,
  sql,
} from 'drizzle-orm'
import { describeEntry, type LedgerKind } from '#domain/ledger.ts'
import { searchPatterns } from '#domain/patient-search.ts'
import type { PatientListQuery, PatientSort } from '#domain/practice-data.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { activities, ledgerEntries, patientDaily, patients } from '#server/db/schema.ts'
import { notFound } from '#server/lib/domain-error.ts'

/** The database, or a transaction on it: the reads run on either. */
export type Executor = Database | Transaction

/** The refusal of a patient id that is not one of the caller's practice (or none at all). */
export const PATIENT_NOT_FOUND = 'Patient not found.'

/** The patient's own details and balance, as a patient answer and a merge both read them. */
export const patientDetailColumns = {
  id: patients.id,
  practice_id: patients.practice_id,
  first_name: patients.first_name,
  last_name: patients.last_name,
  email: patients.email,
  phone: patients.phone,
  email_subscription: patients.email_subscription,
  sms_subscription: patients.sms_subscription,
  birth_date: patients.birth_date,
  converted: patients.converted,
  points: patients.points,
}

/**
 * The columns of a patient answer (domain `PatientSchema`). Never `unsubscribe_id`:
 * whoever holds it can unsubscribe the patient, so it travels only in the patient's own e-mails.
 */
export const patientColumns = {
  ...patientDetailColumns,
  archived: sql<boolean>`${patients.archived_at} is not null`.as('archived'),
  last_visit_at: patients.last_visit_at,
  created_at: patients.created_at,
  merged_into_id: patients.merged_into_id,
}

/** A patient as the API answers it. */
export type PatientRow = Awaited<ReturnType<typeof findPatient>> & {}

/** Loads a patient by row id (or undefined). */
export async function findPatient(db: Executor, id: number) {
  const [row] = await db.select(patientColumns).from(patients).where(eq(patients.id, id)).limit(1)
  return row
}

/**
 * The patient `id` of the practice; otherwise 404 "Patient not found.", the same answer whether
 * the patient does not exist or belongs to another practice (a 403 would tell which ids exist).
 */
export async function ownPatient(db: Executor, practiceId: number, id: number) {
  const row = await findPatient(db, id)
  if (!row || row.practice_id !== practiceId) throw notFound(PATIENT_NOT_FOUND)
  return row
}

const SORT_ORDER: Record<PatientSort, SQL[]> = {
  name: [asc(patients.last_name), asc(patients.first_name), asc(patients.id)],
  '-name': [desc(patients.last_name), desc(patients.first_name), desc(patients.id)],
  points: [asc(patients.points), asc(patients.id)],
  '-points': [desc(patients.points), desc(patients.id)],
  last_visit: [sql`${patients.last_visit_at} asc nulls first`, asc(patients.id)],
  '-last_visit': [sql`${patients.last_visit_at} desc nulls last`, desc(patients.id)],
  created: [asc(patients.created_at), asc(patients.id)],
  '-created': [desc(patients.created_at), desc(patients.id)],
}

/**
 * A search's name order: the same order, case folded. Besides reading better (McKay beside Mckay),
 * it is an order no index gives, so the planner gathers the matches through the trigram index and
 * sorts them, rather than walking the whole practice by name to find 25 matches.
 */
export const SEARCH_SORT_ORDER: Record<PatientSort, SQL[]> = {
  ...SORT_ORDER,
  name: [sql`lower(${patients.last_name})`, sql`lower(${patients.first_name})`, asc(patients.id)],
  '-name': [
    sql`lower(${patients.last_name}) desc`,
    sql`lower(${patients.first_name}) desc`,
    desc(patients.id),
  ],
}

/**
 * Where a search matches (domain/patient-search.ts): every typed word at the start of a word of
 * the name, the e-mail or the phone, in any order. One `LIKE '% word%'` per word over the
 * patient's `search_text` (migration 0027), all answered by its trigram index without reading
 * every patient of the practice.
 */
export function searchCondition(term: string): SQL | undefined {
  const words = searchPatterns(term)
  if (words.length === 0) return undefined
  return and(
    ...words.map((patterns) =>
      or(...patterns.map((pattern) => like(patients.search_text, pattern))),
    ),
  )
}

/** A search's answer columns, each row also carrying the number of all matches. */
const searchedColumns = { ...patientColumns, total: sql<number>`count(*) over ()`.as('total') }

/**
 * One page of the practice's patients (archived ones only with `archived=true`; merged records
 * never), searched and sorted as the query asks, with the number of all that match.
 */
export async function patientPage(
  db: Database,
  practiceId: number,
  query: PatientListQuery,
): Promise<{ data: PatientRow[]; total: number }> {
  const where = and(
    eq(patients.practice_id, practiceId),
    query.archived === 'true' ? isNotNull(patients.archived_at) : isNull(patients.archived_at),
    // A merged record is in no list: the patient it was merged into is.
    isNull(patients.merged_into_id),
    searchCondition(query.search),
  )
  const offset = (query.page - 1) * query.pageSize
  const countAll = async () => {
    const [row] = await db.select({ total: sql<number>`count(*)::int` }).from(patients).where(where)
    return Number(row?.total ?? 0)
  }
  if (query.search) {
    // A search counts its matches in the same query: the planner then gathers the matches
    // through the trigram index first, so the cost follows the matches, not the practice.
    const rows = await db
      .select(searchedColumns)
      .from(patients)
      .where(where)
      .orderBy(...SEARCH_SORT_ORDER[query.sort])
      .limit(query.pageSize)
      .offset(offset)
    const data = rows.map(({ total: _, ...row }) => row)
    return { data, total: rows[0] ? Number(rows[0].total) : await countAll() }
  }
  const [data, total] = await Promise.all([
    db
      .select(patientColumns)
      .from(patients)
      .where(where)
      .orderBy(...SORT_ORDER[query.sort])
      .limit(query.pageSize)
      .offset(offset),
    listedCount(db, practiceId, query.archived === 'true'),
  ])
  return { data, total }
}

/**
 * How many patients the unsearched list holds, from the daily counts the database keeps
 * (patient_daily, migration 0033) rather than by counting the practice's patients: those who
 * have not left (a merged record has), or, for the archive, those who left without being merged.
 */
async function listedCount(db: Database, practiceId: number, archived: boolean): Promise<number> {
  const listed = archived ? sql`left_count - merged` : sql`joined - left_count`
  const [row] = await db
    .select({ total: sql<number>`coalesce(sum(${listed}), 0)::int` })
    .from(patientDaily)
    .where(eq(patientDaily.practice_id, practiceId))
  return Number(row?.total ?? 0)
}

/**
 * The practice's patients (merged records left out; only the converted ones when asked), ordered
 * by last name, first name and id, from `offset`, at most `limit`.
 */
export function practicePatients(
  db: Database,
  practiceId: number,
  { limit, offset }: { limit: number; offset: number },
  { convertedOnly = false }: { convertedOnly?: boolean } = {},
) {
  return db
    .select(patientColumns)
    .from(patients)
    .where(
      and(
        eq(patients.practice_id, practiceId),
        isNull(patients.merged_into_id),
        convertedOnly ? eq(patients.converted, true) : undefined,
      ),
    )
    .orderBy(asc(patients.last_name), asc(patients.first_name), asc(patients.id))
    .limit(limit)
    .offset(offset)
}

/** The activities recorded for a patient (claims, redemptions, visits), in no order. */
export function recordedActivities(db: Database, patientId: number) {
  return db
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
    .where(eq(activities.patient_id, patientId))
}

/** Every ledger entry of a patient, in no order. */
export function ledgerEntriesOf(db: Database, patientId: number) {
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId))
}

/**
 * A patient's activity, newest first: the recorded activities and every ledger entry in words
 * ("Points adjusted by +500: birthday"), each ledger line with `kind` `ledger.<kind>` and the
 * entry's signed points.
 */
export async function patientActivity(db: Database, patientId: number) {
  const [recorded, entries] = await Promise.all([
    recordedActivities(db, patientId),
    ledgerEntriesOf(db, patientId),
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
  return [...recorded, ...fromLedger].sort(
    (a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id,
  )
}

/**
 * How many patients the practice has (archived ones left out), how many receive e-mail and how
 * many became clients, counted in the database.
 */
export async function patientCounts(db: Database, practiceId: number) {
  const [row] = await db
    .select({
      patients: sql<number>`count(*)::int`,
      subscribed: sql<number>`count(*) filter (where ${patients.email_subscription})::int`,
      converted: sql<number>`count(*) filter (where ${patients.converted})::int`,
    })
    .from(patients)
    .where(and(eq(patients.practice_id, practiceId), isNull(patients.archived_at)))
  return {
    patients: Number(row?.patients ?? 0),
    subscribed: Number(row?.subscribed ?? 0),
    converted: Number(row?.converted ?? 0),
  }
}

export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows

/**
 * The pairs of active patients of the practice who share a phone or an e-mail (without case), one
 * row per pair and reason, as the opening of a `with` (the caller closes its parenthesis). Two
 * equality joins, each answered by an index or a hash join, not one join on "phone or e-mail",
 * which only a nested loop over every pair of the practice could answer.
 */
const pairsOf = (practiceId: number) => sql`pairs as (
          select a.id as first_id, b.id as second_id, 'phone' as reason
          from patients a
          join patients b on b.practice_id = a.practice_id and b.phone = a.phone and b.id > a.id
          where a.practice_id = ${practiceId} and a.archived_at is null and a.phone is not null
            and b.archived_at is null
          union all
          select a.id, b.id, 'email'
          from patients a
          join patients b
            on b.practice_id = a.practice_id and lower(b.email) = lower(a.email) and b.id > a.id
          where a.practice_id = ${practiceId} and a.archived_at is null and a.email is not null
            and b.archived_at is null`

/**
 * One page of the pairs of the practice's active patients who share a phone or an e-mail, each
 * with its reasons, ordered by the first patient's name, and the number of all pairs.
 */
export async function duplicatePairs(
  db: Database,
  practiceId: number,
  { page, pageSize }: { page: number; pageSize: number },
) {
  const result = await db.execute(sql`
        with ${pairsOf(practiceId)}
        ), grouped as (
          select first_id, second_id,
            bool_or(reason = 'phone') as same_phone, bool_or(reason = 'email') as same_email
          from pairs group by first_id, second_id
        )
        select g.first_id, g.second_id, g.same_phone, g.same_email, count(*) over () as total
        from grouped g join patients p on p.id = g.first_id
        order by lower(p.last_name), lower(p.first_name), g.first_id, g.second_id
        limit ${pageSize} offset ${(page - 1) * pageSize}`)
  const pairs = rowsOf<{
    first_id: number
    second_id: number
    same_phone: boolean
    same_email: boolean
    total: number | string
  }>(result)
  const ids = [...new Set(pairs.flatMap((p) => [Number(p.first_id), Number(p.second_id)]))]
  const people =
    ids.length === 0
      ? []
      : await db
          .select({
            id: patients.id,
            first_name: patients.first_name,
            last_name: patients.last_name,
            email: patients.email,
            phone: patients.phone,
            points: patients.points,
            created_at: patients.created_at,
          })
          .from(patients)
          .where(and(eq(patients.practice_id, practiceId), inArray(patients.id, ids)))
  const byId = new Map(people.map((p) => [p.id, { ...p, created_at: p.created_at.toISOString() }]))
  let total = pairs[0] ? Number(pairs[0].total) : 0
  if (!pairs[0] && page > 1) {
    // Past the last page: the count still says how many pairs there are.
    const all = await db.execute(sql`
          with ${pairsOf(practiceId)}
          ) select count(distinct (first_id, second_id))::int as n from pairs`)
    total = Number(rowsOf<{ n: number }>(all)[0]?.n ?? 0)
  }
  return {
    data: pairs.flatMap((p) => {
      const first = byId.get(Number(p.first_id))
      const second = byId.get(Number(p.second_id))
      if (!first || !second) return []
      const reasons = [
        ...(p.same_phone ? (['phone'] as const) : []),
        ...(p.same_email ? (['email'] as const) : []),
      ]
      return [{ first, second, reasons }]
    }),
    total,
  }
}
