import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm'
import { Hono } from 'hono'
import { pointsForItem } from '#domain/ledger.ts'
import {
  CATALOGUE_MESSAGES,
  type CatalogueItem,
  CatalogueItemInputSchema,
} from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { procedures, products } from '#server/db/schema.ts'
import { notFound } from '#server/http/errors.ts'
import { assertOwnPractice } from '#server/http/scope.ts'
import { idParams, jsonBody, toId } from '#server/http/validate.ts'
import { readProgrammeRules } from './programme-rules.ts'

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

/**
 * The practice's catalogue (spec section 7 and PORTAL.md section 4), one set of routes for
 * procedures and one for products:
 * - `GET /procedures?practice={id}` (every role): the items that are not archived, by name;
 *   `archived=true` lists the archived ones. `practice` is required and must be the user's own.
 * - `POST /procedures`, `PUT /procedures/{id}`, `POST /procedures/{id}/archive` and `/restore`
 *   (Manager, Admin): name, price in cents, points per unit (empty: the price times the
 *   programme's points per dollar) and the days that must pass between two awards of the item to
 *   one patient. An archived item stays in the history of the visits that used it.
 */
function catalogueRoutes(ctx: ServerContext, table: CatalogueTable) {
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

  /** Archives or restores item `id` of the practice; archiving twice keeps the first date. */
  async function setArchived(practiceId: number, id: number, archived: boolean) {
    const item = await ownItem(practiceId, id)
    const [row] = await ctx.db
      .update(table)
      .set({ archived_at: archived ? (item.archived_at ?? ctx.now()) : null })
      .where(eq(table.id, item.id))
      .returning(columns)
    if (!row) throw notFound(CATALOGUE_MESSAGES.notFound)
    return toItem(row, await pointsPerDollar(practiceId))
  }

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get('/', requirePermission(ctx, 'catalogue.read'), async (c) => {
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
    .post('/', manage, jsonBody(CatalogueItemInputSchema), async (c) => {
      const input = c.req.valid('json')
      const practiceId = c.var.user.practice_id
      const [row] = await ctx.db
        .insert(table)
        .values({ ...input, practice_id: practiceId, created_at: ctx.now() })
        .returning(columns)
      if (!row) throw new Error('The catalogue item was not stored')
      return c.json(toItem(row, await pointsPerDollar(practiceId)), 201)
    })
    .put('/:id', manage, idParams('id'), jsonBody(CatalogueItemInputSchema), async (c) => {
      const { id } = c.req.valid('param')
      const input = c.req.valid('json')
      const practiceId = c.var.user.practice_id
      const item = await ownItem(practiceId, id)
      const [row] = await ctx.db
        .update(table)
        .set(input)
        .where(eq(table.id, item.id))
        .returning(columns)
      if (!row) throw notFound(CATALOGUE_MESSAGES.notFound)
      return c.json(toItem(row, await pointsPerDollar(practiceId)))
    })
    .post('/:id/archive', manage, idParams('id'), async (c) =>
      c.json(await setArchived(c.var.user.practice_id, c.req.valid('param').id, true)),
    )
    .post('/:id/restore', manage, idParams('id'), async (c) =>
      c.json(await setArchived(c.var.user.practice_id, c.req.valid('param').id, false)),
    )
}

/** `/procedures`: the practice's treatments. See {@link catalogueRoutes}. */
export function procedureRoutes(ctx: ServerContext) {
  return catalogueRoutes(ctx, procedures)
}

/** `/products`: the practice's retail products. See {@link catalogueRoutes}. */
export function productRoutes(ctx: ServerContext) {
  return catalogueRoutes(ctx, products)
}
