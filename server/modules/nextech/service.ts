import { and, desc, eq, gt, sql } from 'drizzle-orm'
import {
  NEXTECH_SETUP_MESSAGES,
  NEXTECH_SYNC_MESSAGES,
  type NextechCounts,
  type NextechCredentialsInput,
  type NextechRun,
  type NextechStatus,
  type NextechSyncHealth,
  type NextechTestAnswer,
  NO_NEXTECH_COUNTS,
} from '#domain/nextech.ts'
import type { NextechSettings } from '#domain/sign-up/practice-details.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent } from '#server/auth/caller.ts'
import type { ServerContext } from '#server/context.ts'
import { openJson, sealJson } from '#server/db/data-key.ts'
import { nextechConnections, nextechSyncRuns, practices } from '#server/db/schema.ts'
import { conflict, notFound } from '#server/lib/domain-error.ts'
import type { NextechCredentials, NextechTokens } from '#server/nextech/client.ts'
import { NEXTECH_MESSAGES, NextechFailure } from '#server/nextech/failures.ts'

type Context = Pick<ServerContext, 'db' | 'config' | 'now' | 'nextech'>

/** The counts of runs that ended in the last day, summed. */
function sumCounts(runs: { counts: Record<string, number> }[]): NextechCounts {
  const total: NextechCounts = { ...NO_NEXTECH_COUNTS }
  for (const run of runs) {
    for (const key of Object.keys(total) as (keyof NextechCounts)[]) {
      total[key] += Number(run.counts[key] ?? 0)
    }
  }
  return total
}

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
export function nextechService(
  ctx: Context,
  review: {
    count(practiceId: number): Promise<number>
    unmappedCount(practiceId: number): Promise<number>
  },
) {
  const dataKey = ctx.config.dataKey

  /** The sync's health: last sync and lag, the last day's counts, what waits for a person. */
  async function health(practiceId: number, lastSyncAt: Date | null): Promise<NextechSyncHealth> {
    const since = new Date(ctx.now().getTime() - 24 * 3600 * 1000)
    const [runs, running, reviewCount, unmappedCount] = await Promise.all([
      ctx.db
        .select({ counts: nextechSyncRuns.counts })
        .from(nextechSyncRuns)
        .where(
          and(eq(nextechSyncRuns.practice_id, practiceId), gt(nextechSyncRuns.started_at, since)),
        ),
      // A run is going while a process holds the practice's lease: the run of a process that
      // died stays `running` until the next sync takes its place, but it is not going.
      ctx.db
        .select({ id: nextechSyncRuns.id })
        .from(nextechSyncRuns)
        .innerJoin(
          nextechConnections,
          eq(nextechConnections.practice_id, nextechSyncRuns.practice_id),
        )
        .where(
          and(
            eq(nextechSyncRuns.practice_id, practiceId),
            eq(nextechSyncRuns.status, 'running'),
            gt(nextechConnections.lease_until, ctx.now()),
          ),
        )
        .orderBy(desc(nextechSyncRuns.id))
        .limit(1),
      review.count(practiceId),
      review.unmappedCount(practiceId),
    ])
    return {
      last_sync_at: lastSyncAt?.toISOString() ?? null,
      lag_seconds: lastSyncAt
        ? Math.max(0, Math.round((ctx.now().getTime() - lastSyncAt.getTime()) / 1000))
        : null,
      counts: sumCounts(runs),
      review_count: reviewCount,
      unmapped_count: unmappedCount,
      running_run_id: running[0]?.id ?? null,
    }
  }

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
        sync: await health(practiceId, connection?.last_sync_at ?? null),
      }
    },

    /**
     * `PUT`: new Nextech fields for a practice that chose Nextech (the password kept when
     * omitted). Changed fields forget the old connection and its watermarks (links are kept);
     * then the connection is tested. 409 when the practice did not choose Nextech.
     */
    async update(actor: Actor, input: NextechCredentialsInput) {
      const practiceId = actor.user.practice_id
      const { chosen, settings } = await practiceOf(practiceId)
      if (!chosen) throw conflict(NEXTECH_SETUP_MESSAGES.notChosen)
      const next = {
        client_id: input.client_id.trim(),
        username: input.username.trim(),
        password: input.password ?? settings?.password ?? '',
        nx_practice_id: input.nx_practice_id.trim(),
      }
      if (!next.password) throw conflict(NEXTECH_SETUP_MESSAGES.incomplete)
      const changed =
        !settings ||
        settings.client_id !== next.client_id ||
        settings.username !== next.username ||
        settings.password !== next.password ||
        settings.nx_practice_id !== next.nx_practice_id
      if (changed) {
        await ctx.db.transaction(async (tx) => {
          await tx
            .update(practices)
            .set({ nextech: sealJson(next, dataKey) })
            .where(eq(practices.id, practiceId))
          await tx.delete(nextechConnections).where(eq(nextechConnections.practice_id, practiceId))
          await recordWithin(
            tx,
            actorEvent(actor, 'integration.updated', { practice_id: next.nx_practice_id }),
            ctx.now(),
          )
        })
      }
      return this.test(actor)
    },

    /** One sync run of the practice; 404 for another practice's. */
    async run(practiceId: number, runId: number): Promise<NextechRun> {
      const [row] = await ctx.db
        .select()
        .from(nextechSyncRuns)
        .where(and(eq(nextechSyncRuns.id, runId), eq(nextechSyncRuns.practice_id, practiceId)))
      if (!row) throw notFound(NEXTECH_SYNC_MESSAGES.runNotFound)
      return {
        id: row.id,
        status: row.status as NextechRun['status'],
        trigger: row.trigger as NextechRun['trigger'],
        counts: sumCounts([row]),
        requests: row.requests,
        error: row.error,
        started_at: row.started_at.toISOString(),
        finished_at: row.finished_at?.toISOString() ?? null,
      }
    },

    /** `DELETE`: the credentials and tokens erased; the patients' links and synced bills kept. */
    async disconnect(actor: Actor) {
      const practiceId = actor.user.practice_id
      await ctx.db.transaction(async (tx) => {
        await tx.update(practices).set({ nextech: sql`null` }).where(eq(practices.id, practiceId))
        await tx.delete(nextechConnections).where(eq(nextechConnections.practice_id, practiceId))
        await recordWithin(tx, actorEvent(actor, 'integration.disconnected', {}), ctx.now())
      })
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
          .select({
            status: nextechConnections.status,
            since: nextechConnections.connected_since,
            award_from: nextechConnections.award_from,
          })
          .from(nextechConnections)
          .where(eq(nextechConnections.practice_id, practiceId))
          .for('update')
        const row = {
          // The first connection that works sets the day bills start earning (no backfill).
          ...(failure || before?.award_from ? {} : { award_from: now.toISOString().slice(0, 10) }),
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
