import { Hono } from 'hono'
import {
  NEXTECH_SETUP_MESSAGES,
  NEXTECH_SYNC_MESSAGES,
  NextechBackfillInputSchema,
  NextechBackfillSchema,
  NextechCodeMappingSchema,
  NextechCredentialsInputSchema,
  NextechReviewActionSchema,
  NextechReviewPageSchema,
  NextechRunSchema,
  NextechRunStartedSchema,
  NextechStatusSchema,
  NextechTestAnswerSchema,
  NextechUnmappedPageSchema,
} from '#domain/nextech.ts'
import { actorOf } from '#server/auth/actor.ts'
import { type Actor, actorEvent } from '#server/auth/caller.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { badRequest } from '#server/http/errors.ts'
import { refuseWhenLimited } from '#server/http/rate-limited.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { conflict } from '#server/lib/domain-error.ts'
import { OTHER_PRACTICE, operation, TOO_MANY } from '#server/openapi/operation.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { createReview } from './review.ts'
import { nextechService } from './service.ts'
import { nextechSyncOf } from './sync.ts'

/** "Sync now" per practice: each run reads Nextech's changes within its 20 requests a second. */
export const NEXTECH_SYNC_LIMIT = { max: 6, windowMs: 60 * 1000 } as const

export const NEXTECH_SYNC_TOO_MANY =
  'A Nextech sync was started many times in the last minute. Please wait a minute and try again.'

/** Connection tests per practice: each signs in at Microsoft and reads Nextech once. */
export const NEXTECH_TEST_LIMIT = { max: 10, windowMs: 60 * 1000 } as const

/** The 429 of {@link NEXTECH_TEST_LIMIT}. */
export const NEXTECH_TEST_TOO_MANY =
  'The Nextech connection was tested many times in the last minute. Please wait a minute and try again.'

/**
 * `/practice/integrations/nextech`: the connection's status (any member of the practice; never
 * the credentials) and "Test connection" (Admin: `practice.settings`). The four fields themselves
 * are set in the practice's details (`PUT /practice`).
 */
export function nextechRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const sync = nextechSyncOf(ctx)
  const review = createReview(ctx, sync)
  const nextech = nextechService(ctx, review)
  const admin = requirePermission(ctx, 'practice.settings')

  /** The backfill of the actor's practice, logged when applied; 409 before the first connection. */
  const backfill = async (actor: Actor, input: { since: string; preview: boolean }) => {
    const practiceId = actor.user.practice_id
    const status = await nextech.status(practiceId)
    if (!status.chosen || status.status === 'untested') {
      throw conflict(NEXTECH_SYNC_MESSAGES.notConnected)
    }
    const answer = await sync.bills.backfill(practiceId, input.since, { preview: input.preview })
    if (answer.applied) {
      await ctx.audit.record(
        actorEvent(actor, 'nextech.backfilled', {
          since: input.since,
          lines: answer.lines,
          points: answer.points,
        }),
      )
    }
    return answer
  }
  const limiter = createRateLimiter(ctx.rateLimitStore)
  return new Hono<AppEnv>()
    .get(
      '/',
      operation({
        summary: 'Read the Nextech connection',
        description:
          'Any member of the practice: whether the practice chose Nextech and gave its four fields, whether the last call to Nextech worked, since when, and the last failure in words. The credentials are never answered. `sandbox` is true where the built-in Nextech sandbox answers (never in production). `sync` is the health of the sync: the last one that worked and the lag since, what the syncs of the last 24 hours changed, the review queue and the unmapped service codes, and the run going on.',
        tag: 'Integrations',
        responses: { 200: { description: 'The connection.', json: NextechStatusSchema } },
      }),
      auth,
      anyStaffMember(),
      async (c) => c.json(await nextech.status(c.var.user.practice_id)),
    )
    .post(
      '/test',
      operation({
        summary: 'Test the Nextech connection',
        description:
          "Admin only. Signs the practice's Nextech API user in (OAuth 2.0 password grant at Microsoft) and reads one page of patients with its practice ID. `ok` says whether it worked; `message` says why not in words (wrong username or password, a password expired at Microsoft, an unknown client ID or practice ID, Nextech unreachable or limiting requests). Audited with the outcome. At most 10 tests a minute per practice (429).",
        tag: 'Integrations',
        responses: {
          200: { description: 'The outcome, in words.', json: NextechTestAnswerSchema },
          429: TOO_MANY,
        },
      }),
      auth,
      requirePermission(ctx, 'practice.settings'),
      async (c) => {
        const key = `nextech-test:${c.var.user.practice_id}`
        const decision = await limiter.consume(key, NEXTECH_TEST_LIMIT, ctx.now().getTime())
        refuseWhenLimited(decision, NEXTECH_TEST_TOO_MANY)
        return c.json(await nextech.test(actorOf(ctx, c)))
      },
    )
    .put(
      '/',
      operation({
        summary: 'Set the Nextech connection',
        description:
          "Admin only, for a practice that chose Nextech as its health record (409 otherwise). Stores the four fields sealed (the password is kept when omitted and never answered), forgets the old connection when a field changed (the patients' links and synced bills stay), then tests the connection and answers the outcome in words, as `POST /test` does.",
        tag: 'Integrations',
        responses: {
          200: { description: 'The outcome of the test, in words.', json: NextechTestAnswerSchema },
          409: NEXTECH_SETUP_MESSAGES.notChosen,
          429: TOO_MANY,
        },
      }),
      auth,
      admin,
      jsonBody(NextechCredentialsInputSchema),
      async (c) => {
        const key = `nextech-test:${c.var.user.practice_id}`
        const decision = await limiter.consume(key, NEXTECH_TEST_LIMIT, ctx.now().getTime())
        refuseWhenLimited(decision, NEXTECH_TEST_TOO_MANY)
        return c.json(await nextech.update(actorOf(ctx, c), c.req.valid('json')))
      },
    )
    .delete(
      '/',
      operation({
        summary: 'Disconnect Nextech',
        description:
          "Admin only. Erases the Nextech credentials and tokens and stops the sync. The patients' links, synced appointments and bills, and the points they earned are kept.",
        tag: 'Integrations',
        responses: {
          200: { description: 'The connection, now not configured.', json: NextechStatusSchema },
        },
      }),
      auth,
      admin,
      async (c) => {
        await nextech.disconnect(actorOf(ctx, c))
        return c.json(await nextech.status(c.var.user.practice_id))
      },
    )
    .post(
      '/sync',
      operation({
        summary: 'Sync with Nextech now',
        description:
          "Admin only. Starts reading the practice's patients, appointments and bills changed in Nextech since the last sync, and answers at once with the run's id (202); `GET /runs/{id}` follows it. When a sync of the practice is already going (in any server process) its id is answered. 409 when Nextech is not connected; at most 6 a minute.",
        tag: 'Integrations',
        responses: {
          202: { description: 'The run started.', json: NextechRunStartedSchema },
          409: NEXTECH_SYNC_MESSAGES.notConnected,
          429: TOO_MANY,
        },
      }),
      auth,
      admin,
      async (c) => {
        const key = `nextech-sync:${c.var.user.practice_id}`
        const decision = await limiter.consume(key, NEXTECH_SYNC_LIMIT, ctx.now().getTime())
        refuseWhenLimited(decision, NEXTECH_SYNC_TOO_MANY)
        const run = await sync.start(c.var.user.practice_id, 'manual')
        return c.json({ run_id: run.runId }, 202)
      },
    )
    .get(
      '/runs/:id',
      operation({
        summary: 'Follow a Nextech sync',
        description:
          'Admin only. The run: `running`, then `done` with what it changed and the requests it made per endpoint, or `failed` with why in words.',
        tag: 'Integrations',
        responses: {
          200: { description: 'The run.', json: NextechRunSchema },
          404: OTHER_PRACTICE,
        },
      }),
      auth,
      admin,
      idParams('id'),
      async (c) => c.json(await nextech.run(c.var.user.practice_id, c.req.valid('param').id)),
    )
    .get(
      '/review',
      operation({
        summary: 'Read the Nextech review queue',
        description:
          'Admin only. What the sync would not guess, oldest first: a Nextech patient matching several patients here or one whose name disagrees, a void whose points were already spent, a line earning more than the ceiling.',
        tag: 'Integrations',
        responses: { 200: { description: 'The open items.', json: NextechReviewPageSchema } },
      }),
      auth,
      admin,
      async (c) => c.json({ items: await review.items(c.var.user.practice_id) }),
    )
    .post(
      '/review/:id',
      operation({
        summary: 'Resolve a Nextech review item',
        description:
          "Admin only. A patient item: `link` to a patient of the practice, `create` a new one, or `ignore` the Nextech patient. A ceiling item: `award` the line's points, or `ignore`. A reversal item: `ignore` (the points stay). Bills that waited for the patient earn at once. Answers the queue left; logged.",
        tag: 'Integrations',
        responses: {
          200: { description: 'The open items left.', json: NextechReviewPageSchema },
          404: NEXTECH_SYNC_MESSAGES.reviewNotFound,
          422: 'The action does not fit the item.',
        },
      }),
      auth,
      admin,
      idParams('id'),
      jsonBody(NextechReviewActionSchema),
      async (c) =>
        c.json(await review.resolve(actorOf(ctx, c), c.req.valid('param').id, c.req.valid('json'))),
    )
    .get(
      '/unmapped',
      operation({
        summary: "Read the Nextech bills' service codes",
        description:
          'Admin only. The service codes of synced bills, those without a catalogue item first, with their text and number of lines. An unmapped line earns by its price times the points per dollar.',
        tag: 'Integrations',
        responses: { 200: { description: 'The codes.', json: NextechUnmappedPageSchema } },
      }),
      auth,
      admin,
      async (c) => c.json({ codes: await review.codes(c.var.user.practice_id) }),
    )
    .put(
      '/unmapped/:code',
      operation({
        summary: 'Map a Nextech service code',
        description:
          "Admin only. Later bills' lines with this code earn as the catalogue item does (its points, its minimum days). With `apply_to_synced`, the lines already synced that earned nothing are priced again. Logged.",
        tag: 'Integrations',
        path: {
          code: {
            description: 'The service code as Nextech writes it.',
            schema: { type: 'string', maxLength: 100 },
          },
        },
        responses: {
          200: { description: 'The codes.', json: NextechUnmappedPageSchema },
          404: NEXTECH_SYNC_MESSAGES.codeNotFound,
        },
      }),
      auth,
      admin,
      jsonBody(NextechCodeMappingSchema),
      async (c) => {
        const code = c.req.param('code')
        if (code.length > 100) throw badRequest('The service code is too long.', { code })
        return c.json(await review.map(actorOf(ctx, c), code, c.req.valid('json')))
      },
    )
    .post(
      '/backfill',
      operation({
        summary: 'Award points for older Nextech bills',
        description:
          'Admin only. Bills synced from Nextech earn from the day the practice connected. This awards the bills dated from `since` up to that day, once each (a second backfill finds nothing left). With `preview: true` it answers what they would earn (lines, bills, patients, points) and changes nothing. Logged.',
        tag: 'Integrations',
        responses: {
          200: { description: 'What the backfill earns or earned.', json: NextechBackfillSchema },
          409: NEXTECH_SYNC_MESSAGES.notConnected,
        },
      }),
      auth,
      admin,
      jsonBody(NextechBackfillInputSchema),
      async (c) => c.json(await backfill(actorOf(ctx, c), c.req.valid('json'))),
    )
}
