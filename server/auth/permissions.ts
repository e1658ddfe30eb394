/**
 * Enforces domain/permissions.ts on a route: after `requireAuth`, a role without the permission
 * is refused with 403 and the matrix's sentence naming what is missing, and the refusal is written
 * to the audit trail (who, which permission, which route; never a request value).
 *
 * Every signed-in route declares what it needs, in its own handler list: a permission
 * ({@link requirePermission}) or, for what any member of the practice may do whatever their role
 * (their own profile, the staff list, signing out), {@link anyStaffMember}. The declaration is
 * readable on the middleware, so a test walks the route list and a route that declares nothing
 * fails it (server/security/route-permissions.security.test.ts).
 */
import type { Context } from 'hono'
import { createMiddleware } from 'hono/factory'
import { can, PERMISSION_REFUSALS, type Permission } from '#domain/permissions.ts'
import { userEvent } from '#server/audit/audit.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { forbidden } from '#server/http/errors.ts'

/** What a signed-in route needs: one permission of the matrix, or only to be staff of the practice. */
export type RouteAccess = Permission | 'staff'

/** A middleware that says what its route needs, so a test can read what each route declares. */
export type AccessMiddleware = ReturnType<typeof createMiddleware<AppEnv>> & {
  access: RouteAccess
}

const ACCESS = Symbol.for('glow.route-access')

function declare(
  middleware: ReturnType<typeof createMiddleware<AppEnv>>,
  access: RouteAccess,
): AccessMiddleware {
  Object.defineProperty(middleware, ACCESS, { value: access })
  return Object.assign(middleware, { access })
}

/** What a route's handler declares it needs, when it is a declaration. */
export function declaredAccess(handler: unknown): RouteAccess | undefined {
  if (typeof handler !== 'function') return undefined
  return (handler as { [ACCESS]?: RouteAccess })[ACCESS]
}

/**
 * Writes the refusal of `permission` to the signed-in user to the audit trail: who, which
 * permission, which route. For the route middleware and for a handler that refuses on its own.
 */
export async function auditRefusal(
  ctx: Pick<ServerContext, 'audit' | 'clientIp'>,
  c: Context<AppEnv>,
  permission: Permission,
): Promise<void> {
  const route = `${c.req.method} ${c.req.routePath}`
  await ctx.audit.record(
    userEvent('permission.refused', c.var.user, ctx.clientIp(c), { permission, route }),
  )
}

/** Refuses (403) a signed-in user whose role lacks `permission`. Put it after `requireAuth`. */
export function requirePermission(
  ctx: Pick<ServerContext, 'audit' | 'clientIp'>,
  permission: Permission,
): AccessMiddleware {
  const middleware = createMiddleware<AppEnv>(async (c, next) => {
    if (!can(c.var.user.access_rights, permission)) {
      await auditRefusal(ctx, c, permission)
      throw forbidden(PERMISSION_REFUSALS[permission])
    }
    await next()
  })
  return declare(middleware, permission)
}

/**
 * Declares a route any signed-in member of the practice may call, whatever their role (the
 * session check before it is the whole rule). It checks nothing itself; it says so on purpose.
 */
export function anyStaffMember(): AccessMiddleware {
  return declare(
    createMiddleware<AppEnv>(async (_c, next) => {
      await next()
    }),
    'staff',
  )
}
