import type { Context } from 'hono'
import type { Actor } from '#server/auth/caller.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'

/** The signed-in user of the request and their address: who a use case audits as acting. */
export function actorOf(ctx: Pick<ServerContext, 'clientIp'>, c: Context<AppEnv>): Actor {
  return { user: c.var.user, ip: ctx.clientIp(c) }
}
