import { and, asc, desc, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import * as v from 'valibot'
import { PatientInputSchema } from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import type { Database } from '#server/db/client.ts'
import { patientPromotions, patients, promotions } from '#server/db/schema.ts'
import { notFound } from '#server/http/errors.ts'
import { assertOwnPractice, ownRow } from '#server/http/scope.ts'
import { idParams, jsonBody, parseOr400 } from '#server/http/validate.ts'
import { randomToken } from '#server/lib/random.ts'

/** The columns of a patient answer (domain `PatientSchema`). */
export const patientColumns = {
  id: patients.id,
  practice_id: patients.practice_id,
  first_name: patients.first_name,
  last_name: patients.last_name,
  email: patients.email,
  phone: patients.phone,
  email_subscription: patients.email_subscription,
  unsubscribe_id: patients.unsubscribe_id,
  converted: patients.converted,
  points: patients.points,
  created_at: patients.created_at,
}

/** The columns of a promotion answer (domain `PromotionSchema`). */
export const promotionColumns = {
  id: promotions.id,
  practice_id: promotions.practice_id,
  title: promotions.title,
  description: promotions.description,
  points: promotions.points,
  starts_at: promotions.starts_at,
  ends_at: promotions.ends_at,
}

const patientOrder = [asc(patients.last_name), asc(patients.first_name), asc(patients.id)]

/** Loads a patient by row id (or undefined). */
export async function findPatient(db: Database, id: number) {
  const [row] = await db.select(patientColumns).from(patients).where(eq(patients.id, id)).limit(1)
  return row
}

const PageQuerySchema = v.object({
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1), v.maxValue(200)),
    '50',
  ),
  offset: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,9}$/), v.transform(Number), v.minValue(0)),
    '0',
  ),
})

const PatientUpdateSchema = v.partial(PatientInputSchema)

const UnsubscribeInputSchema = v.object({ email_subscription: v.literal(false) })

// Unsubscribe tokens are base64url (randomToken); anything else cannot match and is not looked up.
const UNSUBSCRIBE_ID = /^[\w-]{16,128}$/

/**
 * Patients of the signed-in user's practice (spec section 7). Our readings of the three lists:
 * `by-practice/{id}` is one page (`?limit=` 1..200, default 50, `?offset=`), ordered by name;
 * `all/by-practice/{id}` is every patient; `all/by-practice/converted/{id}` every converted one.
 * `PUT /unsubscribe/{token}` needs no session: the random token of the e-mailed link is the key.
 */
export function patientRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)

  return new Hono<AppEnv>()
    .get('/by-practice/:id', auth, idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      assertOwnPractice(c.var.user, id)
      const { limit, offset } = parseOr400(PageQuerySchema, c.req.query())
      const rows = await ctx.db
        .select(patientColumns)
        .from(patients)
        .where(eq(patients.practice_id, id))
        .orderBy(...patientOrder)
        .limit(limit)
        .offset(offset)
      return c.json(rows)
    })
    .get('/all/by-practice/:id', auth, idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      assertOwnPractice(c.var.user, id)
      const rows = await ctx.db
        .select(patientColumns)
        .from(patients)
        .where(eq(patients.practice_id, id))
        .orderBy(...patientOrder)
      return c.json(rows)
    })
    .get('/all/by-practice/converted/:id', auth, idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      assertOwnPractice(c.var.user, id)
      const rows = await ctx.db
        .select(patientColumns)
        .from(patients)
        .where(and(eq(patients.practice_id, id), eq(patients.converted, true)))
        .orderBy(...patientOrder)
      return c.json(rows)
    })
    .get('/promotions/:id', auth, idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
      const rows = await ctx.db
        .select({
          patient_id: patientPromotions.patient_id,
          promotion_id: patientPromotions.promotion_id,
          status: patientPromotions.status,
          claimed_at: patientPromotions.claimed_at,
          redeemed_at: patientPromotions.redeemed_at,
          promotion: promotionColumns,
        })
        .from(patientPromotions)
        .innerJoin(promotions, eq(promotions.id, patientPromotions.promotion_id))
        .where(eq(patientPromotions.patient_id, id))
        .orderBy(desc(patientPromotions.claimed_at), asc(patientPromotions.promotion_id))
      return c.json(rows)
    })
    .put('/unsubscribe/:token', jsonBody(UnsubscribeInputSchema), async (c) => {
      const token = c.req.param('token')
      const updated = UNSUBSCRIBE_ID.test(token)
        ? await ctx.db
            .update(patients)
            .set({ email_subscription: false })
            .where(eq(patients.unsubscribe_id, token))
            .returning({ id: patients.id })
        : []
      if (updated.length === 0) throw notFound('This unsubscribe link is not valid.')
      return c.json({ email_subscription: false })
    })
    .get('/:id', auth, idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      return c.json(ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient'))
    })
    .put('/:id', auth, idParams('id'), jsonBody(PatientUpdateSchema), async (c) => {
      const { id } = c.req.valid('param')
      const current = ownRow(c.var.user, await findPatient(ctx.db, id), 'Patient')
      const changes = c.req.valid('json')
      if (Object.keys(changes).length === 0) return c.json(current)
      const [row] = await ctx.db
        .update(patients)
        .set(changes)
        .where(eq(patients.id, id))
        .returning(patientColumns)
      return c.json(row)
    })
    .post('/', auth, jsonBody(PatientInputSchema), async (c) => {
      const input = c.req.valid('json')
      const [row] = await ctx.db
        .insert(patients)
        .values({
          ...input,
          practice_id: c.var.user.practice_id,
          unsubscribe_id: randomToken(),
          created_at: ctx.now(),
        })
        .returning(patientColumns)
      return c.json(row, 201)
    })
}
