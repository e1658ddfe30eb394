/// <reference types="fhir" />
/**
 * The Nextech sync: one run reads a practice's `Patient`, `Appointment` and `Claim` changes and
 * applies them (patients.ts, bills.ts). NEXTECH.md section 2, decision 024.
 *
 * - **One worker per practice**, across processes on one database: a run holds a lease on the
 *   practice's connection row (`lease_owner`, `lease_until`), renewed after every page. A run that
 *   finds the lease held answers the run already going. A crashed process's lease lapses.
 * - **Watermarks.** Each resource is read from its watermark minus an overlap
 *   (`_lastUpdated=ge…`), 50 a page (`_count=50`), following `next` links. Nextech does not
 *   document an order, so the watermark only moves when a walk ends, to the greatest
 *   `lastUpdated` it read but never past the walk's start: a record changed during the walk
 *   (which may move between pages) is read again by the next one.
 * - **Resumable.** The walk in progress (its query, the `next` link, the greatest `lastUpdated`
 *   so far) is saved after every page. A run cut off (crash, deploy, Nextech failing) resumes
 *   from that page. What a page did is applied idempotently (keys per claim line, links per
 *   Nextech id), so the page read again changes nothing twice.
 * - **Within Nextech's limits.** A token bucket per practice and endpoint (20 a second); a 429
 *   waits `Retry-After`, a 5xx or no answer backs off exponentially (throttle.ts). The next page
 *   is requested while the current one is applied.
 */
import { hostname } from 'node:os'
import { and, desc, eq, isNull, lt, lte, or, type SQL, sql } from 'drizzle-orm'
import { NEXTECH_SYNC_MESSAGES, type NextechCounts, NO_NEXTECH_COUNTS } from '#domain/nextech.ts'
import type { NextechSettings } from '#domain/sign-up/practice-details.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { openJson, sealJson } from '#server/db/data-key.ts'
import { nextechConnections, nextechSyncRuns, practices, users } from '#server/db/schema.ts'
import { conflict } from '#server/lib/domain-error.ts'
import { randomToken } from '#server/lib/random.ts'
import { readAhead } from '#server/lib/read-ahead.ts'
import { templateMail } from '#server/messaging/outbound.ts'
import type { NextechCredentials, NextechResource, NextechTokens } from '#server/nextech/client.ts'
import { NextechFailure } from '#server/nextech/failures.ts'
import { readAppointment, readClaim, readPatient } from '#server/nextech/resources.ts'
import {
  createTokenBucket,
  NEXTECH_REQUESTS_PER_SECOND,
  realWaiting,
  type Waiting,
  withRetries,
} from '#server/nextech/throttle.ts'
import { createBills, type PricingBasis } from './bills.ts'
import { nextechFailingEmail } from './failing-email.ts'
import { createPatientSync } from './patients.ts'

type Context = Pick<ServerContext, 'db' | 'config' | 'now' | 'nextech' | 'log' | 'outbound'>

/** Where a resource's reading stands (kept in `nextech_connections.watermarks`). */
export type ResourceMark = {
  /** Read everything up to here (ISO instant); null before the first complete walk. */
  mark: string | null
  /** The walk in progress, if one was cut off. */
  walk: {
    since: string | null
    started: string
    next: string | null
    max: string | null
  } | null
}

/** How far back each walk reads before its watermark: Nextech's clock is not ours. */
export const NEXTECH_OVERLAP_MS = 5 * 60 * 1000
/** How long a run's lease holds without a page read. */
export const NEXTECH_LEASE_MS = 2 * 60 * 1000
/** When every sync of a practice has failed for this long, its Admins get one e-mail. */
export const FAILING_MAIL_AFTER_MS = 60 * 60 * 1000
/** Records a page (Nextech's most). */
export const NEXTECH_PAGE_SIZE = 50
/** Pages of one resource read ahead of the one being applied. */
export const NEXTECH_READ_AHEAD = 4
/** Pages of bills applied on one reading of the practice's rules and mappings. */
export const NEXTECH_BASIS_PAGES = 20

export type SyncOptions = {
  waiting?: Waiting
  /** This process, as the lease names it. */
  owner?: string
}

/** A run started: its id, and its end (the route does not wait for it; tests and the bench do). */
export type StartedRun = { runId: number; done: Promise<void> }

/** A run this process has going, and whether its outcome is being written (it is then over). */
type Going = { started: Promise<StartedRun>; settling: boolean }

/** A lease that another process took after this one's lapsed: the run stops. */
class LeaseLost extends Error {}

const later = (a: string | null, b: string | null) =>
  a === null ? b : b === null ? a : Date.parse(a) >= Date.parse(b) ? a : b

function credentialsOf(settings: NextechSettings | null): NextechCredentials | null {
  if (!settings) return null
  const fields = [settings.client_id, settings.username, settings.password, settings.nx_practice_id]
  return fields.every((field) => (field ?? '').trim() !== '') ? settings : null
}

const syncs = new WeakMap<object, ReturnType<typeof createNextechSync>>()

/** The sync of this server context (one per app: its routes and its schedule share it). */
export function nextechSyncOf(ctx: Context, options: SyncOptions = {}) {
  let sync = syncs.get(ctx)
  if (!sync) {
    sync = createNextechSync(ctx, options)
    syncs.set(ctx, sync)
  }
  return sync
}

export function createNextechSync(ctx: Context, options: SyncOptions = {}) {
  const { db } = ctx
  const waiting = options.waiting ?? ctx.nextech.waiting ?? realWaiting
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomToken(6)}`
  const buckets = new Map<string, ReturnType<typeof createTokenBucket>>()
  const running = new Set<Promise<void>>()
  const patientSync = createPatientSync(ctx)
  const bills = createBills(ctx)

  const bucket = (practiceId: number, endpoint: string) => {
    const key = `${practiceId} ${endpoint}`
    let found = buckets.get(key)
    if (!found) {
      found = createTokenBucket(NEXTECH_REQUESTS_PER_SECOND, waiting)
      buckets.set(key, found)
    }
    return found
  }

  /**
   * Renews the lease on `practiceId`'s sync, writing `also` with it; throws {@link LeaseLost}
   * when another process holds it now (nothing is written then).
   */
  async function renew(practiceId: number, also: { watermarks?: SQL } = {}): Promise<void> {
    const rows = await db
      .update(nextechConnections)
      .set({ lease_until: new Date(ctx.now().getTime() + NEXTECH_LEASE_MS), ...also })
      .where(
        and(
          eq(nextechConnections.practice_id, practiceId),
          eq(nextechConnections.lease_owner, owner),
        ),
      )
      .returning({ id: nextechConnections.practice_id })
    if (rows.length === 0) throw new LeaseLost('Another process took over this sync.')
  }

  async function release(practiceId: number): Promise<void> {
    await db
      .update(nextechConnections)
      .set({ lease_owner: null, lease_until: null })
      .where(
        and(
          eq(nextechConnections.practice_id, practiceId),
          eq(nextechConnections.lease_owner, owner),
        ),
      )
  }

  async function credentialsFor(practiceId: number) {
    const [row] = await db
      .select({ e_record: practices.e_record, nextech: practices.nextech })
      .from(practices)
      .where(eq(practices.id, practiceId))
    if (row?.e_record !== 'nextech' || !row.nextech) return null
    return credentialsOf(openJson<NextechSettings>(row.nextech, ctx.config.dataKey))
  }

  /** One run of one practice, holding the lease: the three walks, then the run's outcome. */
  async function execute(practiceId: number, runId: number, credentials: NextechCredentials) {
    const counts: NextechCounts = { ...NO_NEXTECH_COUNTS }
    const requests: Record<string, number> = {}
    const count = (endpoint: string) => {
      requests[endpoint] = (requests[endpoint] ?? 0) + 1
    }
    const [connection] = await db
      .select()
      .from(nextechConnections)
      .where(eq(nextechConnections.practice_id, practiceId))
    let tokens: NextechTokens | null = connection?.tokens
      ? openJson<NextechTokens>(connection.tokens, ctx.config.dataKey)
      : null
    let signingIn: Promise<NextechTokens> | null = null

    /** A token that works: the one held, refreshed when it lapses, else a new sign-in. */
    const freshTokens = (force: boolean): Promise<NextechTokens> => {
      const held = tokens
      if (!force && held && Date.parse(held.expires_at) > ctx.now().getTime() + 60_000) {
        return Promise.resolve(held)
      }
      signingIn ??= (async () => {
        let next: NextechTokens | null = null
        if (held) {
          count('token')
          next = await ctx.nextech.client.refresh(credentials, held.refresh_token).catch(() => null)
        }
        if (!next) {
          count('token')
          next = await withRetries(() => ctx.nextech.client.signIn(credentials), waiting)
        }
        tokens = next
        await db
          .update(nextechConnections)
          .set({ tokens: sealJson(next, ctx.config.dataKey) })
          .where(eq(nextechConnections.practice_id, practiceId))
        return next
      })().finally(() => {
        signingIn = null
      })
      return signingIn
    }

    const search = (
      resource: NextechResource,
      page: { resource: NextechResource; params: Record<string, string> } | { next: string },
    ) =>
      withRetries(async () => {
        const held = await freshTokens(false)
        await bucket(practiceId, resource).take()
        count(resource)
        try {
          return await ctx.nextech.client.search(held, credentials.nx_practice_id, page)
        } catch (error) {
          if (error instanceof NextechFailure && error.reason === 'token_expired') {
            const renewed = await freshTokens(true)
            await bucket(practiceId, resource).take()
            count(resource)
            return await ctx.nextech.client.search(renewed, credentials.nx_practice_id, page)
          }
          throw error
        }
      }, waiting)

    /**
     * Saves where `resource`'s walk stands and renews the lease, in one statement: only the
     * lease's holder writes, and a process that lost it stops here, before its next page.
     */
    let renewedAt = ctx.now().getTime()
    const saveMark = async (resource: NextechResource, mark: ResourceMark) => {
      renewedAt = ctx.now().getTime()
      await renew(practiceId, {
        watermarks: sql`${nextechConnections.watermarks} || jsonb_build_object(${resource}::text, ${JSON.stringify(mark)}::jsonb)`,
      })
    }

    // The run's counts, for the screen that follows it: at most once a second while it goes,
    // and whole at its end.
    let progressSavedAt = Number.NEGATIVE_INFINITY
    const saveProgress = async ({ always }: { always: boolean }) => {
      const at = waiting.clock()
      if (!always && at - progressSavedAt < 1000) return
      progressSavedAt = at
      await db
        .update(nextechSyncRuns)
        .set({ counts: { ...counts }, requests: { ...requests } })
        .where(eq(nextechSyncRuns.id, runId))
    }

    const marks = (connection?.watermarks ?? {}) as unknown as Record<string, ResourceMark>

    /**
     * Reads one resource from its watermark (or the walk cut off) to the end, page by page. The
     * pages are requested one after another as fast as the bucket allows (each `next` link comes
     * with the page before), up to {@link NEXTECH_READ_AHEAD} pages ahead of the one applied, so
     * that applying a page never holds back the requests, nor the requests the applying.
     */
    const walk = async (
      resource: NextechResource,
      apply: (resources: fhir.Resource[]) => Promise<void>,
    ) => {
      const before: ResourceMark = marks[resource] ?? { mark: null, walk: null }
      let state = before.walk ?? {
        since: before.mark
          ? new Date(Date.parse(before.mark) - NEXTECH_OVERLAP_MS).toISOString()
          : null,
        started: ctx.now().toISOString(),
        next: null,
        max: null,
      }
      await saveMark(resource, { mark: before.mark, walk: state })
      const first = state.next
        ? { next: state.next }
        : {
            resource,
            params: {
              _count: String(NEXTECH_PAGE_SIZE),
              ...(state.since ? { _lastUpdated: `ge${state.since}` } : {}),
            },
          }
      const pages = readAhead(
        first,
        (page) => search(resource, page),
        (bundle) => {
          const next = bundle.link?.find((link) => link.relation === 'next')?.url ?? null
          return next ? { next } : null
        },
        NEXTECH_READ_AHEAD,
      )
      try {
        for (;;) {
          const bundle = await pages.next()
          const next = bundle.link?.find((link) => link.relation === 'next')?.url ?? null
          const entries = (bundle.entry ?? [])
            .map((entry) => entry.resource)
            .filter((item): item is fhir.Resource => item?.resourceType === resource)
          // A page that took long to come (retries, Retry-After) renews the lease first: only
          // its holder applies a page.
          if (ctx.now().getTime() - renewedAt > NEXTECH_LEASE_MS / 4) {
            renewedAt = ctx.now().getTime()
            await renew(practiceId)
          }
          await apply(entries)
          let max = state.max
          for (const item of entries) max = later(max, item.meta?.lastUpdated ?? null)
          state = { ...state, next, max }
          if (!next) break
          await saveMark(resource, { mark: before.mark, walk: state })
          await saveProgress({ always: false })
        }
      } catch (error) {
        // The run keeps the counts of the pages it applied.
        await saveProgress({ always: true }).catch(() => undefined)
        throw error
      } finally {
        pages.stop()
      }
      // The walk is whole: the watermark moves to what it read, never past its start.
      const reached =
        state.max && Date.parse(state.max) > Date.parse(state.started) ? state.started : state.max
      await saveMark(resource, { mark: later(before.mark, reached), walk: null })
      await saveProgress({ always: true })
    }

    await walk('Patient', async (resources) => {
      const linked = await patientSync.applyPage(
        practiceId,
        resources.map((resource) => readPatient(resource as fhir.Patient)),
        counts,
      )
      await bills.applyWaiting(practiceId, linked, counts)
      await patientSync.applyWaitingAppointments(practiceId, linked, counts)
    })
    let basis: PricingBasis | null = null
    let pagesOnBasis = 0
    // Side by side; the run ends when both have (one failing does not cut the other's page).
    const walks = await Promise.allSettled([
      walk('Appointment', (resources) =>
        patientSync.applyAppointments(
          practiceId,
          resources.map((resource) => readAppointment(resource as fhir.Appointment)),
          counts,
        ),
      ),
      walk('Claim', async (resources) => {
        // The rules and the codes' mappings, read again every few pages (a code mapped during
        // a long first sync counts from there on).
        if (!basis || pagesOnBasis >= NEXTECH_BASIS_PAGES) {
          basis = await bills.basisOf(practiceId)
          pagesOnBasis = 0
        }
        pagesOnBasis += 1
        await bills.applyClaims(
          practiceId,
          resources.map((resource) => readClaim(resource as fhir.Claim)),
          counts,
          basis,
        )
      }),
    ])
    for (const outcome of walks) if (outcome.status === 'rejected') throw outcome.reason
    return { counts, requests }
  }

  /** Stores the outcome of a run: the run's row, the connection's health, the activity log. */
  async function finish(
    practiceId: number,
    runId: number,
    outcome:
      | { ok: true; counts: NextechCounts; requests: Record<string, number> }
      | { ok: false; error: string; reason: string },
  ) {
    const at = ctx.now()
    await db.transaction(async (tx) => {
      if (outcome.ok) {
        await tx
          .update(nextechSyncRuns)
          .set({
            status: 'done',
            counts: outcome.counts,
            requests: outcome.requests,
            finished_at: at,
          })
          .where(eq(nextechSyncRuns.id, runId))
        const [before] = await tx
          .select({ status: nextechConnections.status, since: nextechConnections.connected_since })
          .from(nextechConnections)
          .where(eq(nextechConnections.practice_id, practiceId))
        await tx
          .update(nextechConnections)
          .set({
            status: 'connected',
            last_error: null,
            last_error_reason: null,
            last_checked_at: at,
            last_sync_at: at,
            connected_since: before?.status === 'connected' && before.since ? before.since : at,
            failing_since: null,
            failure_mailed_at: null,
          })
          .where(eq(nextechConnections.practice_id, practiceId))
      } else {
        await tx
          .update(nextechSyncRuns)
          .set({ status: 'failed', error: outcome.error, finished_at: at })
          .where(eq(nextechSyncRuns.id, runId))
        await tx
          .update(nextechConnections)
          .set({
            status: 'failing',
            last_error: outcome.error,
            last_error_reason: outcome.reason,
            last_checked_at: at,
            connected_since: null,
            failing_since: sql`coalesce(${nextechConnections.failing_since}, ${at.toISOString()}::timestamptz)`,
          })
          .where(eq(nextechConnections.practice_id, practiceId))
        await mailWhenFailingForAnHour(tx, practiceId, outcome.error, at)
      }
      await recordWithin(
        tx,
        {
          action: 'nextech.synced',
          practiceId,
          details: outcome.ok
            ? { outcome: 'done', run_id: runId, ...outcome.counts }
            : { outcome: 'failed', run_id: runId, reason: outcome.reason },
        },
        at,
      )
    })
    if (!outcome.ok) ctx.outbound.kick()
  }

  /**
   * The Admins' e-mail, once, when every sync of the last hour failed: marked on the connection
   * in the transaction that queues it, so a second failure (or process) sends nothing more.
   */
  async function mailWhenFailingForAnHour(
    tx: Transaction,
    practiceId: number,
    error: string,
    at: Date,
  ) {
    const marked = await tx
      .update(nextechConnections)
      .set({ failure_mailed_at: at })
      .where(
        and(
          eq(nextechConnections.practice_id, practiceId),
          isNull(nextechConnections.failure_mailed_at),
          lte(nextechConnections.failing_since, new Date(at.getTime() - FAILING_MAIL_AFTER_MS)),
        ),
      )
      .returning({ since: nextechConnections.failing_since })
    const since = marked[0]?.since
    if (!since) return
    const [practice] = await tx
      .select({ name: practices.practice_name })
      .from(practices)
      .where(eq(practices.id, practiceId))
    const admins = await tx
      .select({ email: users.email, first_name: users.first_name })
      .from(users)
      .where(
        and(
          eq(users.practice_id, practiceId),
          eq(users.access_rights, 'Admin'),
          isNull(users.deactivated_at),
        ),
      )
    const link = new URL('/settings#integrations', ctx.config.publicUrl).toString()
    for (const admin of admins) {
      await ctx.outbound.enqueue(
        tx,
        templateMail(nextechFailingEmail, admin.email, {
          firstName: admin.first_name,
          practiceName: practice?.name ?? 'your practice',
          since: `${since.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
          error,
          link,
        }),
      )
    }
  }

  /**
   * The run of each practice this process has going (or is starting): a second start here answers
   * it. The lease alone let this process take its own practice again (its owner matches), and the
   * server's first scheduled sync then marked the connect run still going as interrupted and ran
   * a second beside it. A run whose outcome is being written (`settling`) is over: a start then
   * waits for it to be written, and starts a new run.
   */
  const going = new Map<number, Going>()

  return {
    /**
     * Starts a run of `practiceId` unless one is going (in this process or another): answers
     * the run's id either way. 409 when the practice is not connected to Nextech.
     */
    async start(
      practiceId: number,
      trigger: 'manual' | 'schedule' | 'connect',
    ): Promise<StartedRun> {
      for (let current = going.get(practiceId); current; current = going.get(practiceId)) {
        if (!current.settling) return current.started
        await current.started.then(
          (run) => run.done,
          () => undefined,
        )
      }
      const entry = { settling: false } as Going
      entry.started = startRun(practiceId, trigger, entry)
      going.set(practiceId, entry)
      const forget = () => {
        if (going.get(practiceId) === entry) going.delete(practiceId)
      }
      entry.started.then((run) => run.done.finally(forget), forget)
      return entry.started
    },

    /** Resolves when every run this process started has ended. */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running])
    },

    patients: patientSync,
    bills,
  }

  async function startRun(
    practiceId: number,
    trigger: 'manual' | 'schedule' | 'connect',
    entry: Going,
  ): Promise<StartedRun> {
    const credentials = await credentialsFor(practiceId)
    const [connection] = await db
      .select({ practice_id: nextechConnections.practice_id })
      .from(nextechConnections)
      .where(eq(nextechConnections.practice_id, practiceId))
    if (!credentials || !connection) throw conflict(NEXTECH_SYNC_MESSAGES.notConnected)
    // The lease and the run's row together: a second process asking now waits for this
    // transaction, then finds the lease held and the run to answer.
    const run = await db.transaction(async (tx) => {
      const at = ctx.now()
      const leased = await tx
        .update(nextechConnections)
        .set({ lease_owner: owner, lease_until: new Date(at.getTime() + NEXTECH_LEASE_MS) })
        .where(
          and(
            eq(nextechConnections.practice_id, practiceId),
            or(
              isNull(nextechConnections.lease_until),
              lt(nextechConnections.lease_until, at),
              eq(nextechConnections.lease_owner, owner),
            ),
          ),
        )
        .returning({ id: nextechConnections.practice_id })
      if (leased.length === 0) return null
      // A run left `running` by a process that died is over: this one takes its place.
      await tx
        .update(nextechSyncRuns)
        .set({ status: 'failed', error: NEXTECH_SYNC_MESSAGES.interrupted, finished_at: at })
        .where(
          and(eq(nextechSyncRuns.practice_id, practiceId), eq(nextechSyncRuns.status, 'running')),
        )
      const [inserted] = await tx
        .insert(nextechSyncRuns)
        .values({ practice_id: practiceId, trigger, started_at: at })
        .returning({ id: nextechSyncRuns.id })
      return inserted ?? null
    })
    if (!run) {
      const [current] = await db
        .select({ id: nextechSyncRuns.id })
        .from(nextechSyncRuns)
        .where(
          and(eq(nextechSyncRuns.practice_id, practiceId), eq(nextechSyncRuns.status, 'running')),
        )
        .orderBy(desc(nextechSyncRuns.id))
        .limit(1)
      if (current) return { runId: current.id, done: Promise.resolve() }
      throw conflict(NEXTECH_SYNC_MESSAGES.busy)
    }
    const done = (async () => {
      try {
        const result = await execute(practiceId, run.id, credentials)
        entry.settling = true
        await finish(practiceId, run.id, { ok: true, ...result })
      } catch (error) {
        entry.settling = true
        if (error instanceof LeaseLost) {
          // Another process holds the practice now: its run speaks for the connection.
          await db
            .update(nextechSyncRuns)
            .set({ status: 'failed', error: error.message, finished_at: ctx.now() })
            .where(eq(nextechSyncRuns.id, run.id))
            .catch(() => undefined)
          return
        }
        if (!(error instanceof NextechFailure)) {
          ctx.log.error(`The Nextech sync of practice ${practiceId} stopped`, error)
        }
        const message =
          error instanceof NextechFailure
            ? error.message
            : 'The sync stopped on an error of ours. It resumes where it stopped on the next run.'
        await finish(practiceId, run.id, {
          ok: false,
          error: message,
          reason: error instanceof NextechFailure ? error.reason : 'internal',
        }).catch((stored: unknown) => ctx.log.error('The failed sync run was not stored', stored))
      } finally {
        await release(practiceId).catch(() => undefined)
      }
    })()
    running.add(done)
    void done.finally(() => running.delete(done))
    return { runId: run.id, done }
  }
}

/** The sync engine's type. */
export type NextechSync = ReturnType<typeof createNextechSync>

/**
 * Syncs every connected practice every `minutes` (NEXTECH_SYNC_MINUTES; 0: never), one run per
 * practice at a time across processes (the lease). Answers the function that stops it and waits
 * for the runs of this process.
 */
export function scheduleNextechSync(ctx: Context, minutes: number): () => Promise<void> {
  const sync = nextechSyncOf(ctx)
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let ticking: Promise<void> = Promise.resolve()
  const tick = async () => {
    const connected = await ctx.db
      .select({ practice_id: nextechConnections.practice_id })
      .from(nextechConnections)
      .innerJoin(practices, eq(practices.id, nextechConnections.practice_id))
      .where(eq(practices.e_record, 'nextech'))
    for (const { practice_id } of connected) {
      if (stopped) return
      await sync.start(practice_id, 'schedule').catch((error: unknown) => {
        ctx.log.warn(
          `The scheduled Nextech sync of practice ${practice_id} did not start: ${String(error)}`,
        )
      })
    }
  }
  const next = () => {
    if (stopped || minutes <= 0) return
    timer = setTimeout(() => {
      ticking = tick()
        .catch((error: unknown) => ctx.log.error('The Nextech schedule failed', error))
        .finally(next)
    }, minutes * 60_000)
    timer.unref()
  }
  if (minutes > 0) {
    ticking = tick()
      .catch((error: unknown) => ctx.log.error('The Nextech schedule failed', error))
      .finally(next)
  }
  return async () => {
    stopped = true
    if (timer) clearTimeout(timer)
    await ticking
    await sync.idle()
  }
}
