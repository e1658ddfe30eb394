import { eq } from 'drizzle-orm'
import {
  NEXTECH_SETUP_MESSAGES,
  type NextechStatus,
  type NextechTestAnswer,
} from '#domain/nextech.ts'
import type { NextechSettings } from '#domain/sign-up/practice-details.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import { openJson, sealJson } from '#server/db/data-key.ts'
import { nextechConnections, practices } from '#server/db/schema.ts'
import type { NextechCredentials, NextechTokens } from '#server/nextech/client.ts'
import { NEXTECH_MESSAGES, NextechFailure } from '#server/nextech/failures.ts'

type Context = Pick<ServerContext, 'db' | 'config' | 'now' | 'nextech'>

/** The four fields, when the practice chose Nextech and gave all of them. */
function credentialsOf(settings: NextechSettings | null): NextechCredentials | null {
  if (!settings) return null
  const fields = [settings.client_id, settings.username, settings.password, settings.nx_practice_id]
  return fields.every((field) => (field ?? '').trim() !== '') ? settings : null
}

/**
 * The Nextech connection of a practice: its status in words, and "Test connection", which signs
 * the API user in (the password grant) and reads one page of patients with the practice ID, as
 * the sync will. The token pair is kept sealed, like the credentials; each test is an audit event
 * with its outcome.
 */
export function nextechService(ctx: Context) {
  const dataKey = ctx.config.dataKey

  async function practiceOf(practiceId: number) {
    const [row] = await ctx.db
      .select({ e_record: practices.e_record, nextech: practices.nextech })
      .from(practices)
      .where(eq(practices.id, practiceId))
    const settings = row?.nextech ? openJson<NextechSettings>(row.nextech, dataKey) : null
    return { chosen: row?.e_record === 'nextech', settings }
  }

  return {
    async status(practiceId: number): Promise<NextechStatus> {
      const { chosen, settings } = await practiceOf(practiceId)
      const [connection] = await ctx.db
        .select()
        .from(nextechConnections)
        .where(eq(nextechConnections.practice_id, practiceId))
      const status = connection ? (connection.status as 'connected' | 'failing') : 'untested'
      return {
        chosen,
        configured: chosen && credentialsOf(settings) !== null,
        connected: chosen && status === 'connected',
        status: chosen ? status : 'untested',
        practice_id: chosen ? settings?.nx_practice_id || null : null,
        last_checked_at: connection?.last_checked_at.toISOString() ?? null,
        connected_since: connection?.connected_since?.toISOString() ?? null,
        errors:
          connection?.status === 'failing' && connection.last_error ? [connection.last_error] : [],
        sandbox: ctx.nextech.mode === 'sandbox',
      }
    },

    /** Signs in and reads one patient; answers whether it worked and the sentence to show. */
    async test(actor: Actor): Promise<NextechTestAnswer> {
      const practiceId = actor.user.practice_id
      const { chosen, settings } = await practiceOf(practiceId)
      if (!chosen) return { ok: false, message: NEXTECH_SETUP_MESSAGES.notChosen }
      const credentials = credentialsOf(settings)
      if (!credentials) return { ok: false, message: NEXTECH_SETUP_MESSAGES.incomplete }

      let tokens: NextechTokens | null = null
      let failure: NextechFailure | null = null
      try {
        tokens = await ctx.nextech.client.signIn(credentials)
        await ctx.nextech.client.search(tokens, credentials.nx_practice_id, {
          resource: 'Patient',
          params: { _count: '1' },
        })
      } catch (error) {
        if (!(error instanceof NextechFailure)) throw error
        failure = error
      }
      const now = ctx.now()
      await ctx.db.transaction(async (tx) => {
        const [before] = await tx
          .select({ status: nextechConnections.status, since: nextechConnections.connected_since })
          .from(nextechConnections)
          .where(eq(nextechConnections.practice_id, practiceId))
          .for('update')
        const row = {
          // A token that signed in is kept even when the practice ID then failed: it is good.
          tokens: tokens ? sealJson(tokens, dataKey) : null,
          status: failure ? 'failing' : 'connected',
          last_error_reason: failure?.reason ?? null,
          last_error: failure?.message ?? null,
          last_checked_at: now,
          connected_since: failure ? null : before?.status === 'connected' ? before.since : now,
        }
        await tx
          .insert(nextechConnections)
          .values({ practice_id: practiceId, ...row })
          .onConflictDoUpdate({ target: nextechConnections.practice_id, set: row })
        const details: Record<string, string> = failure
          ? { outcome: 'failing', reason: failure.reason }
          : { outcome: 'connected' }
        await recordWithin(tx, actorEvent(actor, 'integration.tested', details), now)
      })
      return failure
        ? { ok: false, message: failure.message }
        : { ok: true, message: NEXTECH_MESSAGES.connected }
    },
  }
}
