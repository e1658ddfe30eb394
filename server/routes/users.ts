import { asc, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { users } from '#server/db/schema.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams } from '#server/http/validate.ts'

/** The columns of a staff answer (domain `StaffMemberSchema`): never the password hash. */
export const staffColumns = {
  id: users.id,
  practice_id: users.practice_id,
  email: users.email,
  title: users.title,
  first_name: users.first_name,
  last_name: users.last_name,
  position: users.position,
  access_rights: users.access_rights,
  image_path: users.image_path,
}

/** `GET /users` (the user's practice's staff, by name) and `GET /users/{id}` (spec section 7). */
export function userRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .get('/', anyStaffMember(), async (c) => {
      const rows = await ctx.db
        .select(staffColumns)
        .from(users)
        .where(eq(users.practice_id, c.var.user.practice_id))
        .orderBy(asc(users.last_name), asc(users.first_name), asc(users.id))
      return c.json(rows)
    })
    .get('/:id', anyStaffMember(), idParams('id'), async (c) => {
      const { id } = c.req.valid('param')
      const [row] = await ctx.db.select(staffColumns).from(users).where(eq(users.id, id)).limit(1)
      return c.json(ownRow(c.var.user, row, 'User'))
    })
}
