/**
 * Enforces domain/permissions.ts on a route: after `requireAuth`, a role without the permission
 * is refused with 403 and the matrix's sentence naming what is missing, and the refusal is written
 * to the audit trail (who, which permission, which route; never a request value).
 */
import { createMiddleware } from 'hono/factory'
import { can, PERMISSION_REFUSALS, type Permission } from '#domain/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { forbidden } from '#server/http/errors.ts'

/** A middleware that knows the permission it checks, so a test can read what a route declares. */
export type PermissionMiddleware = ReturnType<typeof createMiddleware<AppEnv>> & {
  permission: Permission
}

/** Refuses (403) a signed-in user whose role lacks `permission`. Put it after `requireAuth`. */
export function requirePermission(
  ctx: Pick<ServerContext, 'audit' | 'clientIp'>,
  permission: Permission,
): PermissionMiddleware {
  const middleware = createMiddleware<AppEnv>(async (c, next) => {
    const user = c.var.user
    if (!can(user.access_rights, permission)) {
      await ctx.audit.record({
        action: 'permission.refused',
        userId: user.id,
        practiceId: user.practice_id,
        ip: ctx.clientIp(c),
        details: { permission, route: `${c.req.method} ${c.req.routePath}` },
      })
      throw forbidden(PERMISSION_REFUSALS[permission])
    }
    await next()
  })
  return Object.assign(middleware, { permission })
}
