import { and, asc, desc, eq, isNotNull, isNull, like, ne, or, type SQL, sql } from 'drizzle-orm'
import { type Context, Hono } from 'hono'
import { UnsubscribeAnswerSchema } from '#domain/api-answers.ts'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import { searchPatterns } from '#domain/patient-search.ts'
import {
  DUPLICATE_PATIENT_MESSAGES,
  PageQuerySchema,
  PatientInputSchema,
  PatientListQuerySchema,
  PatientPageSchema,
  PatientPromotionSchema,
  PatientSchema,
  type PatientSort,
  PatientSummarySchema,
  PatientUpdateSchema,
  UnsubscribeInputSchema,
  WholeListQuerySchema,
} from '#domain/practice-data.ts'
import type { AuditAction } from '#server/audit/audit.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import type { Database } from '#server/db/client.ts'
import { patients, promotions } from '#server/db/schema.ts'
import { ApiError, conflict, notFound } from '#server/http/errors.ts'
import { assertOwnPractice, ownRow } from '#server/http/scope.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger, readProgrammeRules } from '#server/modules/ledger/index.ts'
import {
  claimsOfPatient,
  isUnsubscribeTokenShaped,
  UNSUBSCRIBE_LINK_INVALID,
  unsubscribeByToken,
} from '#server/modules/promotions/index.ts'
import { OTHER_PRACTICE, operation, tokenParam } from '#server/openapi/operation.ts'
import { patientCounts } from './queries.ts'

/**
 * The columns of a patient answer (domain `PatientSchema`). Never `unsubscribe_id`:
 * whoever holds it can unsubscribe the patient, so it travels only in the patient's own e-mails.
 */
export const patientColumns = {
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
  archived: sql<boolean>`${patients.archived_at} is not null`.as('archived'),
  last_visit_at: patients.last_visit_at,
  created_at: patients.created_at,
  merged_into_id: patients.merged_into_id,
}

type PatientRow = Awaited<ReturnType<typeof findPatient>> & {}

/** A search's answer columns, each row also carrying the number of all matches. */
const searchedColumns = { ...patientColumns, total: sql<number>`count(*) over ()`.as('total') }

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

/**
 * Refuses (409) an e-mail or phone another patient of the practice already has, naming the field
 * and that patient's id so the app can link to them.
 */
async function refuseDuplicate(
  db: Database,
  practiceId: number,
  input: { email?: string | null | undefined; phone?: string | null | undefined },
  exceptId?: number,
) {
  const checks = [
    input.email
      ? { field: 'email' as const, where: sql`lower(${patients.email}) = lower(${input.email})` }
      : undefined,
    input.phone ? { field: 'phone' as const, where: eq(patients.phone, input.phone) } : undefined,
  ]
  for (const check of checks) {
    if (!check) continue
    const [row] = await db
      .select({ id: patients.id })
      .from(patients)
      .where(
        and(
          eq(patients.practice_id, practiceId),
          check.where,
          // A merged record keeps its contact details but is no longer a patient.
          isNull(patients.merged_into_id),
          exceptId === undefined ? undefined : ne(patients.id, exceptId),
        ),
      )
      .limit(1)
    if (row) {
      throw new ApiError(409, API_ERROR_NAMES.conflict, DUPLICATE_PATIENT_MESSAGES[check.field], {
        patient_id: row.id,
        field: check.field,
      })
    }
  }
}

/** The columns of a promotion answer (domain `PromotionSchema`). */
export const promotionColumns = {
  id: promotions.id,
  practice_id: promotions.practice_id,
  title: promotions.title,
  description: promotions.description,
  points: promotions.points,
  points_cost: promotions.points_cost,
  starts_at: promotions.starts_at,
  ends_at: promotions.ends_at,
}

const patientOrder = [asc(patients.last_name), asc(patients.first_name), asc(patients.id)]

/** Loads a patient by row id (or undefined). */
export async function findPatient(db: Database, id: number) {
  const [row] = await db.select(patientColumns).from(patients).where(eq(patients.id, id)).limit(1)
  return row
}

/**
 * Patients of the signed-in user's practice (spec section 7). Our readings of the three lists:
 * `by-practice/{id}` is one page (`?limit=` 1..200, default 50, `?offset=`), ordered by name;
 * `all/by-practice/{id}` is every patient; `all/by-practice/converted/{id}` every converted one.
 * `PUT /unsubscribe/{token}` needs no session: the random token of the e-mailed link is the key.
 */
export function patientRecordRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const ledger = createLedger({ db: ctx.db, now: ctx.now })
  const read = requirePermission(ctx, 'patients.read')
  const write = requirePermission(ctx, 'patients.write')

  const audit = (c: Context<AppEnv>, action: AuditAction, patientId: number) =>
    ctx.audit.record({
      action,
      userId: c.var.user.id,
      practiceId: c.var.user.practice_id,
      ip: ctx.clientIp(c),
      details: { patient_id: patientId },
    })
  const setArchived =
    (archived: boolean) =>
    async (c: Context<AppEnv, '/:id/archive', { out: { param: { id: number } } }>) => {
      const { id } = c.req.valid('param')
      const patient = ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
      // A merged record has nothing left of its own: its rows are on the patient it became. It
      // stays archived (archiving it again changes nothing) and cannot be restored.
      if (patient.merged_into_id !== null) {
        if (archived) return c.json(patient)
        throw conflict(MERGE_MESSAGES.restoreMerged)
      }
      const [row] = await ctx.db
        .update(patients)
        .set({ archived_at: archived ? ctx.now() : null })
        .where(eq(patients.id, id))
        .returning(patientColumns)
      await audit(c, archived ? 'patient.archived' : 'patient.restored', id)
      return c.json(row)
    }

  /**
   * One page of a spec whole-list call, ordered by name: at most `limit` rows (one more is read to
   * know whether a next page exists, named in the `Link` header).
   */
  const wholeList = async (c: Context<AppEnv>, practiceId: number, where: SQL | undefined) => {
    assertOwnPractice(c.var.user, practiceId)
    const { limit, offset } = parseOr400(WholeListQuerySchema, c.req.query())
    const rows = await ctx.db
      .select(patientColumns)
      .from(patients)
      .where(and(eq(patients.practice_id, practiceId), isNull(patients.merged_into_id), where))
      .orderBy(...patientOrder)
      .limit(limit + 1)
      .offset(offset)
    if (rows.length > limit) {
      const next = new URL(c.req.url)
      next.searchParams.set('limit', String(limit))
      next.searchParams.set('offset', String(offset + limit))
      c.header('Link', `<${next.pathname}${next.search}>; rel="next"`)
    }
    return c.json(rows.slice(0, limit))
  }

  return new Hono<AppEnv>()
    .get(
      '/',
      operation({
        summary: 'Search patients, a page at a time',
        description:
          "One page of the practice's patients (archived ones with `archived=true`), searched by name, e-mail or phone digits and sorted on the server. Each has `points`, the ledger's balance.",
        tag: 'Patients',
        query: PatientListQuerySchema,
        responses: {
          200: { description: 'The page and the total that match.', json: PatientPageSchema },
          400: 'A query parameter is not valid (page from 1, pageSize 1 to 100, a known sort).',
        },
      }),
      auth,
      read,
      async (c) => {
        const query = parseOr400(PatientListQuerySchema, c.req.query())
        const where = and(
          eq(patients.practice_id, c.var.user.practice_id),
          query.archived === 'true'
            ? isNotNull(patients.archived_at)
            : isNull(patients.archived_at),
          // A merged record is in no list: the patient it was merged into is.
          isNull(patients.merged_into_id),
          searchCondition(query.search),
        )
        const order = SORT_ORDER[query.sort]
        const offset = (query.page - 1) * query.pageSize
        const countAll = async () => {
          const [row] = await ctx.db
            .select({ total: sql<number>`count(*)::int` })
            .from(patients)
            .where(where)
          return Number(row?.total ?? 0)
        }
        let data: PatientRow[]
        let total: number
        if (query.search) {
          // A search counts its matches in the same query: the planner then gathers the matches
          // through the trigram index first, so the cost follows the matches, not the practice.
          const rows = await ctx.db
            .select(searchedColumns)
            .from(patients)
            .where(where)
            .orderBy(...SEARCH_SORT_ORDER[query.sort])
            .limit(query.pageSize)
            .offset(offset)
          data = rows.map(({ total: _, ...row }) => row)
          total = rows[0] ? Number(rows[0].total) : await countAll()
        } else {
          ;[data, total] = await Promise.all([
            ctx.db
              .select(patientColumns)
              .from(patients)
              .where(where)
              .orderBy(...order)
              .limit(query.pageSize)
              .offset(offset),
            countAll(),
          ])
        }
        c.header('Cache-Control', 'no-store')
        return c.json({ data, total, page: query.page, pageSize: query.pageSize })
      },
    )
    .post(
      '/:id/archive',
      operation({
        summary: 'Archive a patient',
        description:
          'Hides the patient from lists and marketing e-mail; the ledger and history stay. Manager or Admin.',
        tag: 'Patients',
        responses: {
          200: { description: 'The archived patient.', json: PatientSchema },
          404: OTHER_PRACTICE,
        },
      }),
      auth,
      requirePermission(ctx, 'patients.archive'),
      idParams('id'),
      setArchived(true),
    )
    .post(
      '/:id/restore',
      operation({
        summary: 'Restore an archived patient',
        description:
          'Lists the patient again. Manager or Admin. A merged patient cannot be restored.',
        tag: 'Patients',
        responses: {
          200: { description: 'The restored patient.', json: PatientSchema },
          404: OTHER_PRACTICE,
          409: `The patient was merged into another: "${MERGE_MESSAGES.restoreMerged}"`,
        },
      }),
      auth,
      requirePermission(ctx, 'patients.archive'),
      idParams('id'),
      setArchived(false),
    )
    .get(
      '/by-practice/:id',
      operation({
        summary: 'List a page of patients',
        description:
          "One page of the practice's patients, ordered by last name, first name and id.",
        tag: 'Patients',
        query: PageQuerySchema,
        responses: {
          200: { description: 'The page of patients.', json: PatientSchema, array: true },
          400: 'The practice id, `limit` or `offset` is not valid.',
          404: OTHER_PRACTICE,
        },
      }),
      auth,
      read,
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        assertOwnPractice(c.var.user, id)
        const { limit, offset } = parseOr400(PageQuerySchema, c.req.query())
        const rows = await ctx.db
          .select(patientColumns)
          .from(patients)
          .where(and(eq(patients.practice_id, id), isNull(patients.merged_into_id)))
          .orderBy(...patientOrder)
          .limit(limit)
          .offset(offset)
        return c.json(rows)
      },
    )
    .get(
      '/all/by-practice/:id',
      operation({
        summary: 'List every patient, a page at a time',
        description:
          'The patients of the practice, ordered by name. An answer holds at most 500 (`limit`, default and most 500; `offset`), so it never grows with the practice; when more follow, the `Link` header names the next page (`rel="next"`).',
        tag: 'Patients',
        query: WholeListQuerySchema,
        responses: {
          200: { description: 'The patients.', json: PatientSchema, array: true },
          400: 'The practice id, `limit` or `offset` is not valid.',
          404: OTHER_PRACTICE,
        },
      }),
      auth,
      read,
      idParams('id'),
      (c) => wholeList(c, c.req.valid('param').id, undefined),
    )
    .get(
      '/all/by-practice/converted/:id',
      operation({
        summary: 'List converted patients, a page at a time',
        description:
          'The patients of the practice who became clients, ordered by name, at most 500 an answer (`limit`, `offset`) with a `Link` header to the next page as for every patient.',
        tag: 'Patients',
        query: WholeListQuerySchema,
        responses: {
          200: { description: 'The converted patients.', json: PatientSchema, array: true },
          400: 'The practice id, `limit` or `offset` is not valid.',
          404: OTHER_PRACTICE,
        },
      }),
      auth,
      read,
      idParams('id'),
      (c) => wholeList(c, c.req.valid('param').id, eq(patients.converted, true)),
    )
    .get(
      '/summary',
      operation({
        summary: "Count the practice's patients",
        description:
          'How many patients the practice has (archived ones left out), how many receive e-mail and how many became clients: counted in the database, for the dashboard.',
        tag: 'Patients',
        responses: {
          200: { description: 'The counts.', json: PatientSummarySchema },
        },
      }),
      auth,
      read,
      async (c) => {
        const counts = await patientCounts(ctx.db, c.var.user.practice_id)
        c.header('Cache-Control', 'no-store')
        return c.json(counts)
      },
    )
    .get(
      '/promotions/:id',
      operation({
        summary: "List a patient's promotions",
        description: 'The promotions the patient claimed or redeemed, latest claim first.',
        tag: 'Patients',
        responses: {
          200: {
            description: "The patient's promotions.",
            json: PatientPromotionSchema,
            array: true,
          },
          404: 'No patient has this id.',
        },
      }),
      auth,
      read,
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
        const rows = await claimsOfPatient(ctx.db, id, ctx.now())
        return c.json(rows)
      },
    )
    .put(
      '/unsubscribe/:token',
      operation({
        summary: 'Unsubscribe a patient from e-mails',
        description:
          'The link of a patient e-mail. The random token of the link is the key: no session is needed. A well-formed token is answered alike whether or not it names a patient, so the call tells nobody which links exist.',
        tag: 'Patients',
        public: true,
        path: { token: tokenParam('The unsubscribe token of the e-mailed link.') },
        responses: {
          200: {
            description: 'The patient (if any) is unsubscribed.',
            json: UnsubscribeAnswerSchema,
          },
          404: 'This unsubscribe link is not valid: the token does not have the shape of one.',
        },
      }),
      jsonBody(UnsubscribeInputSchema),
      async (c) => {
        const token = c.req.param('token')
        // Only a token of the wrong shape is refused; any other is answered alike, whether or not
        // it names a patient, so the call tells nobody which links exist.
        if (!isUnsubscribeTokenShaped(token)) throw notFound(UNSUBSCRIBE_LINK_INVALID)
        await unsubscribeByToken(ctx.db, token)
        return c.json({ email_subscription: false as const })
      },
    )
    .get(
      '/:id',
      operation({
        summary: 'Read a patient',
        description: "One patient of the signed-in user's practice.",
        tag: 'Patients',
        responses: {
          200: { description: 'The patient.', json: PatientSchema },
          404: 'No patient has this id.',
        },
      }),
      auth,
      read,
      idParams('id'),
      async (c) => {
        const { id } = c.req.valid('param')
        const patient = ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
        // Opening a patient's record is itself on record (who, which patient; never the values).
        await audit(c, 'patient.viewed', id)
        return c.json(patient)
      },
    )
    .put(
      '/:id',
      operation({
        summary: 'Update a patient',
        description:
          'Changes the fields sent; an empty body changes nothing and answers the patient. A phone written any common way is stored in E.164 (`+14085554743`) and compared in that form.',
        tag: 'Patients',
        responses: {
          200: { description: 'The updated patient.', json: PatientSchema },
          404: 'No patient has this id.',
          409: 'Another patient of the practice has this e-mail or phone (`details.patient_id` names them).',
        },
      }),
      auth,
      write,
      idParams('id'),
      jsonBody(PatientUpdateSchema),
      async (c) => {
        const { id } = c.req.valid('param')
        const current = ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
        const changes = c.req.valid('json')
        if (Object.keys(changes).length === 0) return c.json(current)
        await refuseDuplicate(ctx.db, c.var.user.practice_id, changes, id)
        await audit(c, 'patient.updated', id)
        const [row] = await ctx.db
          .update(patients)
          .set(changes)
          .where(eq(patients.id, id))
          .returning(patientColumns)
        return c.json(row)
      },
    )
    .post(
      '/',
      operation({
        summary: 'Add a patient',
        description:
          "Adds a patient to the signed-in user's practice, with a new unsubscribe token. A phone written any common way (`(408) 555-4743`, `+1 408 555 4743`) is stored in E.164 (`+14085554743`) and compared in that form; one that is not a possible number (7 digits without the area code) answers 400.",
        tag: 'Patients',
        responses: {
          201: { description: 'The new patient.', json: PatientSchema },
          409: 'Another patient of the practice has this e-mail or phone (`details.patient_id` names them).',
        },
      }),
      auth,
      write,
      jsonBody(PatientInputSchema),
      async (c) => {
        const input = c.req.valid('json')
        await refuseDuplicate(ctx.db, c.var.user.practice_id, input)
        const [row] = await ctx.db
          .insert(patients)
          .values({
            ...input,
            practice_id: c.var.user.practice_id,
            unsubscribe_id: randomToken(),
            created_at: ctx.now(),
          })
          .returning(patientColumns)
        if (!row) throw new Error('The patient was not stored')
        await audit(c, 'patient.created', row.id)
        // The programme's joining bonus, once per patient (its key makes a retry a no-op), under
        // the rules as they stand when the patient joins.
        const { joining_bonus } = await readProgrammeRules(ctx.db, row.practice_id)
        if (joining_bonus > 0) {
          const { balance } = await ledger.credit({
            practiceId: row.practice_id,
            patientId: row.id,
            userId: c.var.user.id,
            kind: 'bonus',
            points: joining_bonus,
            sourceType: 'joining',
            idempotencyKey: `joining-bonus:${row.id}`,
          })
          return c.json({ ...row, points: balance }, 201)
        }
        return c.json(row, 201)
      },
    )
}
