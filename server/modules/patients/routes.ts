import { type Context, Hono } from 'hono'
import { UnsubscribeAnswerSchema } from '#domain/api-answers.ts'
import { MERGE_MESSAGES } from '#domain/patient-merge.ts'
import {
  PageQuerySchema,
  PatientInputSchema,
  PatientListQuerySchema,
  PatientPageSchema,
  PatientPromotionSchema,
  PatientSchema,
  PatientSummarySchema,
  PatientUpdateSchema,
  UnsubscribeInputSchema,
  WholeListQuerySchema,
} from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { assertOwnPractice } from '#server/http/scope.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { OTHER_PRACTICE, operation, tokenParam } from '#server/openapi/operation.ts'
import { type Actor, createPatients } from './service.ts'

/** Who asks, as the module's services record it: the signed-in user and the client's address. */
export const actorOf = (ctx: ServerContext, c: Context<AppEnv>): Actor => ({
  userId: c.var.user.id,
  practiceId: c.var.user.practice_id,
  ip: ctx.clientIp(c),
})

/**
 * Patients of the signed-in user's practice. Our readings of the three lists:
 * `by-practice/{id}` is one page (`?limit=` 1..200, default 50, `?offset=`), ordered by name;
 * `all/by-practice/{id}` is every patient; `all/by-practice/converted/{id}` every converted one.
 * `PUT /unsubscribe/{token}` needs no session: the random token of the e-mailed link is the key.
 */
export function patientRecordRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const read = requirePermission(ctx, 'patients.read')
  const write = requirePermission(ctx, 'patients.write')
  const patients = createPatients(ctx)

  const setArchived =
    (archived: boolean) =>
    async (c: Context<AppEnv, '/:id/archive', { out: { param: { id: number } } }>) =>
      c.json(await patients.setArchived(actorOf(ctx, c), c.req.valid('param').id, archived))

  /**
   * One page of a spec whole-list call, ordered by name: at most `limit` rows, and the `Link`
   * header naming the next page when one exists.
   */
  const wholeList = async (c: Context<AppEnv>, practiceId: number, convertedOnly: boolean) => {
    assertOwnPractice(c.var.user, practiceId)
    const { limit, offset } = parseOr400(WholeListQuerySchema, c.req.query())
    const { rows, more } = await patients.wholeList(
      practiceId,
      { limit, offset },
      { convertedOnly },
    )
    if (more) {
      const next = new URL(c.req.url)
      next.searchParams.set('limit', String(limit))
      next.searchParams.set('offset', String(offset + limit))
      c.header('Link', `<${next.pathname}${next.search}>; rel="next"`)
    }
    return c.json(rows)
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
        const { data, total } = await patients.list(c.var.user.practice_id, query)
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
        return c.json(await patients.page(id, { limit, offset }))
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
      (c) => wholeList(c, c.req.valid('param').id, false),
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
      (c) => wholeList(c, c.req.valid('param').id, true),
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
        const counts = await patients.summary(c.var.user.practice_id)
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
        return c.json(await patients.promotions(c.var.user.practice_id, id))
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
        // Only a token of the wrong shape is refused; any other is answered alike, whether or not
        // it names a patient, so the call tells nobody which links exist.
        await patients.unsubscribe(c.req.param('token'))
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
        // Opening a patient's record is itself on record (who, which patient; never the values).
        return c.json(await patients.view(actorOf(ctx, c), c.req.valid('param').id))
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
        return c.json(await patients.update(actorOf(ctx, c), id, c.req.valid('json')))
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
        // The programme's joining bonus is posted with the patient, once (its key makes a retry a
        // no-op), under the rules as they stand when the patient joins.
        return c.json(await patients.create(actorOf(ctx, c), c.req.valid('json')), 201)
      },
    )
}
