import { eq } from 'drizzle-orm'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import type { Actor } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import { sealJson } from '#server/db/data-key.ts'
import { practices, users } from '#server/db/schema.ts'
import { createReview } from './review.ts'
import { nextechService } from './service.ts'
import { nextechSyncOf } from './sync.ts'

type Context = Pick<ServerContext, 'db' | 'config' | 'now' | 'nextech' | 'log' | 'outbound'>

/**
 * A practice that gave its Nextech fields at sign-up is connected with them: the connection is
 * tested as an Admin's "Test connection" is (audited alike), and when it works the first sync
 * starts. Sign-up does not wait for it; a failure shows in Settings → Integrations, in words.
 */
export async function connectNewPractice(ctx: Context, actor: Actor): Promise<void> {
  try {
    const sync = nextechSyncOf(ctx)
    const answer = await nextechService(ctx, createReview(ctx, sync)).test(actor)
    if (answer.ok) await sync.start(actor.user.practice_id, 'connect')
  } catch (error) {
    ctx.log.error(`Connecting practice ${actor.user.practice_id} to Nextech failed`, error)
  }
}

/**
 * Outside production, where the built-in sandbox answers, the demo practice of a database just
 * seeded is connected to the sandbox out of the box (its patients there are the demo's own
 * people): the four fields of the sandbox's API user, the connection tested and the first sync
 * started, as a new practice's would be. Answers whether it did.
 */
export async function connectDemoPractice(ctx: Context, adminEmail: string): Promise<boolean> {
  if (ctx.config.production || ctx.nextech.mode !== 'sandbox') return false
  const [admin] = await ctx.db
    .select({ id: users.id, practice_id: users.practice_id })
    .from(users)
    .where(eq(users.email, adminEmail))
  if (!admin) return false
  await ctx.db
    .update(practices)
    .set({
      e_record: 'nextech',
      nextech: sealJson({ ...NEXTECH_SANDBOX_LOGIN }, ctx.config.dataKey),
    })
    .where(eq(practices.id, admin.practice_id))
  await connectNewPractice(ctx, { user: { ...admin, access_rights: 'Admin' }, ip: '127.0.0.1' })
  return true
}
