import type { Actor } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
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
