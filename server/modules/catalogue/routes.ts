import { Hono } from 'hono'
import type * as v from 'valibot'
import { CatalogueItemInputSchema, ProcedureSchema, ProductSchema } from '#domain/practice-data.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { procedures, products } from '#server/db/schema.ts'
import { assertOwnPractice } from '#server/http/scope.ts'
import { idParams, jsonBody, toId } from '#server/http/validate.ts'
import { NAME_TAKEN, OTHER_PRACTICE, operation } from '#server/openapi/operation.ts'
import { type CatalogueTable, catalogueService } from './service.ts'

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
 * The practice's catalogue , one set of routes for
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
  const manage = requirePermission(ctx, 'catalogue.manage')
  const catalogue = catalogueService(ctx.db, ctx.now, table)
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get('/', docs.list, requirePermission(ctx, 'catalogue.read'), async (c) => {
      const practiceId = toId(c.req.query('practice'), 'practice')
      assertOwnPractice(c.var.user, practiceId)
      const archived = c.req.query('archived') === 'true'
      return c.json(await catalogue.list(practiceId, archived))
    })
    .post('/', docs.add, manage, jsonBody(CatalogueItemInputSchema), async (c) => {
      return c.json(await catalogue.add(c.var.user.practice_id, c.req.valid('json')), 201)
    })
    .put(
      '/:id',
      docs.change,
      manage,
      idParams('id'),
      jsonBody(CatalogueItemInputSchema),
      async (c) => {
        const { id } = c.req.valid('param')
        return c.json(await catalogue.change(c.var.user.practice_id, id, c.req.valid('json')))
      },
    )
    .post('/:id/archive', docs.archive, manage, idParams('id'), async (c) =>
      c.json(await catalogue.setArchived(c.var.user.practice_id, c.req.valid('param').id, true)),
    )
    .post('/:id/restore', docs.restore, manage, idParams('id'), async (c) =>
      c.json(await catalogue.setArchived(c.var.user.practice_id, c.req.valid('param').id, false)),
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
