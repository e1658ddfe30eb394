import { asc, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { procedures, products } from '#server/db/schema.ts'
import { assertOwnPractice } from '#server/http/scope.ts'
import { toId } from '#server/http/validate.ts'

/**
 * The practice's catalogue: `GET /procedures?practice={id}` and `GET /products?practice={id}`
 * (spec section 7). `practice` is required and must be the user's own practice.
 */
export function procedureRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get('/', requirePermission(ctx, 'catalogue.read'), async (c) => {
      const practiceId = toId(c.req.query('practice'), 'practice')
      assertOwnPractice(c.var.user, practiceId)
      const rows = await ctx.db
        .select({
          id: procedures.id,
          practice_id: procedures.practice_id,
          name: procedures.name,
          price: procedures.price,
          points: procedures.points,
        })
        .from(procedures)
        .where(eq(procedures.practice_id, practiceId))
        .orderBy(asc(procedures.name), asc(procedures.id))
      return c.json(rows)
    })
}

/** See {@link procedureRoutes}: the same reading for products. */
export function productRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get('/', requirePermission(ctx, 'catalogue.read'), async (c) => {
      const practiceId = toId(c.req.query('practice'), 'practice')
      assertOwnPractice(c.var.user, practiceId)
      const rows = await ctx.db
        .select({
          id: products.id,
          practice_id: products.practice_id,
          name: products.name,
          price: products.price,
          points: products.points,
        })
        .from(products)
        .where(eq(products.practice_id, practiceId))
        .orderBy(asc(products.name), asc(products.id))
      return c.json(rows)
    })
}
