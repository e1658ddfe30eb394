import { and, asc, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import type * as v from 'valibot'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { pointsForItem } from '#domain/ledger.ts'
import {
  CATALOGUE_MESSAGES,
  type CatalogueItem,
  CatalogueItemInputSchema,
  ProcedureSchema,
  ProductSchema,
} from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { procedures, products } from '#server/db/schema.ts'
import { ApiError, notFound } from '#server/http/errors.ts'
import { assertOwnPractice } from '#server/http/scope.ts'
import { idParams, jsonBody, toId } from '#server/http/validate.ts'
import { readProgrammeRules } from '#server/modules/ledger/index.ts'
import { NAME_TAKEN, OTHER_PRACTICE, operation } from '#server/openapi/operation.ts'

type CatalogueTable = typeof procedures | typeof products

type CatalogueRow = {
  id: number
  practice_id: number
  name: string
  price: number
  points: number | null
  min_days_between: number
  archived_at: Date | null
}

/** A row as the API answers it: `points` is what one unit earns under today's rules. */
function toItem(row: CatalogueRow, pointsPerDollar: number): CatalogueItem {
  return {
    id: row.id,
    practice_id: row.practice_id,
    name: row.name,
    price: row.price,
    points: pointsForItem(row, 1, { points_per_dollar: pointsPerDollar }),
    own_points: row.points,
    min_days_between: row.min_days_between,
    archived: row.archived_at !== null,
  }
}

/** The 409 of a name an active item already has: the sentence names it, details carry its id. */
const nameTaken = (existing: { id: number; name: string }) =>
  new ApiError(409, API_ERROR_NAMES.conflict, CATALOGUE_MESSAGES.nameTaken(existing.name), {
    field: 'name',
    existing_id: existing.id,
  })

/** Whether `error` is the database refusing a second active item of a name (migration 0028). */
function isNameIndexViolation(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown }
    if (code === '23505')
      return typeof constraint !== 'string' || constraint.endsWith('_name_unique')
  }
  return false
}

/** What the OpenAPI document says of the five routes of one half of the catalogue. */
function catalogueOperations(kind: string, plural: string, schema: v.GenericSchema) {
  return {
    list: operation({
      summary: `List ${plural}`,
      description: `The practice's ${plural} that are not archived, by name (\`archived=true\`: the archived ones). \`practice\` must be the user's own practice. \`points\` is what one unit earns now: \`own_points\`, or the price times the programme's points per dollar when \`own_points\` is null.`,
      tag: 'Catalogue',
      query: {
        practice: {
          description: "The practice id: the signed-in user's own.",
          required: true,
          schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647 },
        },
        archived: {
          description: `\`true\` lists the archived ${plural} instead.`,
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      },
      responses: {
        200: { description: `The ${plural}.`, json: schema, array: true },
        400: '`practice` is missing or not a positive whole number.',
        404: OTHER_PRACTICE,
      },
    }),
    add: operation({
      summary: `Add a ${kind}`,
      description: `Adds a ${kind} to the catalogue: name, price in cents, points per unit (null: from the price) and the days that must pass between two awards of it to one patient.`,
      tag: 'Catalogue',
      responses: { 201: { description: `The new ${kind}.`, json: schema }, 409: NAME_TAKEN },
    }),
    change: operation({
      summary: `Change a ${kind}`,
      description: 'Replaces the name, price, points per unit and days between awards.',
      tag: 'Catalogue',
      responses: {
        200: { description: `The ${kind} as saved.`, json: schema },
        404: OTHER_PRACTICE,
        409: NAME_TAKEN,
      },
    }),
    archive: operation({
      summary: `Archive a ${kind}`,
      description: `Takes the ${kind} out of the catalogue; visits that used it keep it in their history. Archiving twice keeps the first date.`,
      tag: 'Catalogue',
      responses: {
        200: { description: `The archived ${kind}.`, json: schema },
        404: OTHER_PRACTICE,
      },
    }),
    restore: operation({
      summary: `Restore a ${kind}`,
      description: `Puts an archived ${kind} back in the catalogue, unless an active item now has its name.`,
      tag: 'Catalogue',
      responses: {
        200: { description: `The restored ${kind}.`, json: schema },
        404: OTHER_PRACTICE,
        409: NAME_TAKEN,
      },
    }),
  }
}

/**
 * The practice's catalogue (spec section 7 and PORTAL.md section 4), one set of routes for
 * procedures and one for products:
 * - `GET /procedures?practice={id}` (every role): the items that are not archived, by name;
 *   `archived=true` lists the archived ones. `practice` is required and must be the user's own.
 * - `POST /procedures`, `PUT /procedures/{id}`, `POST /procedures/{id}/archive` and `/restore`
 *   (Manager, Admin): name, price in cents, points per unit (empty: the price times the
 *   programme's points per dollar) and the days that must pass between two awards of the item to
 *   one patient. An archived item stays in the history of the visits that used it. Names are
 *   unique among the practice's active items, case aside: a second one (created, renamed or
 *   restored) is refused with 409 naming the item that has it.
 */
function catalogueRoutes(
  ctx: ServerContext,
  table: CatalogueTable,
  docs: ReturnType<typeof catalogueOperations>,
) {
  const columns = {
    id: table.id,
    practice_id: table.practice_id,
    name: table.name,
    price: table.price,
    points: table.points,
    min_days_between: table.min_days_between,
    archived_at: table.archived_at,
  }
  const manage = requirePermission(ctx, 'catalogue.manage')
  const pointsPerDollar = async (practiceId: number) =>
    (await readProgrammeRules(ctx.db, practiceId)).points_per_dollar

  /** The item `id` of the user's practice, or 404 (another practice's reads as unknown). */
  async function ownItem(practiceId: number, id: number): Promise<CatalogueRow> {
    const [row] = await ctx.db.select(columns).from(table).where(eq(table.id, id))
    if (!row || row.practice_id !== practiceId) throw notFound(CATALOGUE_MESSAGES.notFound)
    return row
  }

  /**
   * Refuses (409) a name that an active item of the practice other than `exceptId` already has,
   * case and surrounding spaces aside, naming that item (the database's unique index, migration
   * 0028, holds the same rule when two requests race).
   */
  async function refuseTakenName(practiceId: number, name: string, exceptId?: number) {
    const [taken] = await ctx.db
      .select({ id: table.id, name: table.name })
      .from(table)
      .where(
        and(
          eq(table.practice_id, practiceId),
          isNull(table.archived_at),
          sql`lower(btrim(${table.name})) = lower(btrim(${name}))`,
          exceptId === undefined ? undefined : ne(table.id, exceptId),
        ),
      )
      .limit(1)
    if (taken) throw nameTaken(taken)
  }

  /** Runs a write; a race lost to the unique index answers as {@link refuseTakenName} does. */
  async function writeName<T>(
    practiceId: number,
    name: string,
    exceptId: number | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    await refuseTakenName(practiceId, name, exceptId)
    try {
      return await write()
    } catch (error) {
      if (isNameIndexViolation(error)) await refuseTakenName(practiceId, name, exceptId)
      throw error
    }
  }

  /** Archives or restores item `id` of the practice; archiving twice keeps the first date. */
  async function setArchived(practiceId: number, id: number, archived: boolean) {
    const item = await ownItem(practiceId, id)
    const update = () =>
      ctx.db
        .update(table)
        .set({ archived_at: archived ? (item.archived_at ?? ctx.now()) : null })
        .where(eq(table.id, item.id))
        .returning(columns)
    // Restoring an item brings its name back among the active ones.
    const [row] =
      archived || item.archived_at === null
        ? await update()
        : await writeName(practiceId, item.name, item.id, update)
    if (!row) throw notFound(CATALOGUE_MESSAGES.notFound)
    return toItem(row, await pointsPerDollar(practiceId))
  }

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get('/', docs.list, requirePermission(ctx, 'catalogue.read'), async (c) => {
      const practiceId = toId(c.req.query('practice'), 'practice')
      assertOwnPractice(c.var.user, practiceId)
      const archived = c.req.query('archived') === 'true'
      const [rows, perDollar] = await Promise.all([
        ctx.db
          .select(columns)
          .from(table)
          .where(
            and(
              eq(table.practice_id, practiceId),
              archived ? isNotNull(table.archived_at) : isNull(table.archived_at),
            ),
          )
          .orderBy(asc(table.name), asc(table.id)),
        pointsPerDollar(practiceId),
      ])
      return c.json(rows.map((row) => toItem(row, perDollar)))
    })
    .post('/', docs.add, manage, jsonBody(CatalogueItemInputSchema), async (c) => {
      const input = c.req.valid('json')
      const practiceId = c.var.user.practice_id
      const [row] = await writeName(practiceId, input.name, undefined, () =>
        ctx.db
          .insert(table)
          .values({ ...input, practice_id: practiceId, created_at: ctx.now() })
          .returning(columns),
      )
      if (!row) throw new Error('The catalogue item was not stored')
      return c.json(toItem(row, await pointsPerDollar(practiceId)), 201)
    })
    .put(
      '/:id',
      docs.change,
      manage,
      idParams('id'),
      jsonBody(CatalogueItemInputSchema),
      async (c) => {
        const { id } = c.req.valid('param')
        const input = c.req.valid('json')
        const practiceId = c.var.user.practice_id
        const item = await ownItem(practiceId, id)
        const update = () =>
          ctx.db.update(table).set(input).where(eq(table.id, item.id)).returning(columns)
        // An archived item's name is free until it is restored.
        const [row] =
          item.archived_at === null
            ? await writeName(practiceId, input.name, item.id, update)
            : await update()
        if (!row) throw notFound(CATALOGUE_MESSAGES.notFound)
        return c.json(toItem(row, await pointsPerDollar(practiceId)))
      },
    )
    .post('/:id/archive', docs.archive, manage, idParams('id'), async (c) =>
      c.json(await setArchived(c.var.user.practice_id, c.req.valid('param').id, true)),
    )
    .post('/:id/restore', docs.restore, manage, idParams('id'), async (c) =>
      c.json(await setArchived(c.var.user.practice_id, c.req.valid('param').id, false)),
    )
}

/** `/procedures`: the practice's treatments. See {@link catalogueRoutes}. */
export function procedureRoutes(ctx: ServerContext) {
  return catalogueRoutes(
    ctx,
    procedures,
    catalogueOperations('procedure', 'procedures', ProcedureSchema),
  )
}

/** `/products`: the practice's retail products. See {@link catalogueRoutes}. */
export function productRoutes(ctx: ServerContext) {
  return catalogueRoutes(ctx, products, catalogueOperations('product', 'products', ProductSchema))
}
