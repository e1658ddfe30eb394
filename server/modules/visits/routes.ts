/**
 * The front desk over HTTP (issue 17): `/visits` (preview, record, read, undo) and a patient's
 * redemption code and redemptions. The rules live in server/modules/visits/service.ts; every posting is
 * audited once (who, which patient id, how many points; never a personal value).
 */
import { and, eq } from 'drizzle-orm'
import { Hono } from 'hono'
import { LEDGER_MESSAGES } from '#domain/ledger.ts'
import { can, toRole } from '#domain/permissions.ts'
import {
  type ApprovalRequest,
  ApprovalRequestSchema,
  RedemptionCodeCheckSchema,
  RedemptionCodeInputSchema,
  RedemptionInputSchema,
  VISIT_MESSAGES,
  VisitInputSchema,
  VisitPreviewInputSchema,
} from '#domain/visits.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { requirePermission } from '#server/auth/permissions.ts'
import { createSignInThrottle } from '#server/auth/sign-in-throttle.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import { patients, users } from '#server/db/schema.ts'
import { ApiError, forbidden, notFound } from '#server/http/errors.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { AUTH_LIMITS, dummyPasswordHash, refuseWhenLimited } from '#server/modules/auth/index.ts'
import { verifyPassword } from '#server/security/passwords.ts'
import { createRateLimiter } from '#server/security/rate-limit.ts'
import { createCheckout, type PostingSummary } from './service.ts'

/** How many codes one member may check a minute (`POST /patients/{id}/redemption-code/check`). */
export const CODE_CHECKS_PER_MEMBER = { max: 20, windowMs: 60 * 1000 }

/** Audits a refused override like the permission middleware does, then lets it through. */
async function auditRefusal(
  ctx: ServerContext,
  user: AuthUser,
  ip: string,
  error: unknown,
): Promise<never> {
  if (error instanceof ApiError && error.status === 403 && error.message.startsWith('Only ')) {
    await ctx.audit.record({
      action: 'permission.refused',
      userId: user.id,
      practiceId: user.practice_id,
      ip,
      details: { permission: 'redeem.override' },
    })
  }
  throw error
}

function auditDetails(summary: PostingSummary, extra: Record<string, number>) {
  return {
    patient_id: summary.patient_id,
    earned: summary.earned,
    redeemed: summary.redeemed,
    bonus: summary.bonus,
    override: summary.override,
    // The approving manager is the event's colleague (`member`), named in the activity log.
    ...(summary.approved_by
      ? { member: summary.approved_by, approval_reason: summary.approval_reason ?? '' }
      : {}),
    // The offer redeemed at the visit and what it took off (issue 28), for the activity log.
    ...(summary.promotion_id
      ? {
          promotion_id: summary.promotion_id,
          discount_cents: summary.discount_cents ?? 0,
          ...(summary.offer_title ? { title: summary.offer_title } : {}),
        }
      : {}),
    ...extra,
  }
}

/**
 * Who approves a visit's prices and points (issue 28): a Manager or Admin signing in at the desk
 * (e-mail and password, counted like a sign-in: failures per account and per address, the same
 * hashing gate), else the session's member, who must be a Manager or Admin themselves.
 */
async function approverOf(
  ctx: ServerContext,
  user: AuthUser,
  ip: string,
  manager: ApprovalRequest['manager'],
): Promise<number> {
  if (!manager) {
    if (!can(user.access_rights, 'visits.approve')) {
      throw forbidden(VISIT_MESSAGES.approverNotManager)
    }
    return user.id
  }
  const limiter = createRateLimiter(ctx.rateLimitStore)
  const throttle = createSignInThrottle(ctx.rateLimitStore, AUTH_LIMITS)
  const at = ctx.now().getTime()
  const accountKey = `signin:account:${manager.email}`
  // The sign-in's limits per account and address pair (issue 30): a colleague's failures at the
  // same desk never refuse this manager; at the desk the account is locked after 5 failures.
  refuseWhenLimited((await throttle.admit(manager.email, ip, at)).decision)
  refuseWhenLimited(await limiter.check(accountKey, AUTH_LIMITS.signInFailuresPerAccount, at))
  ctx.hashing.admit('trusted')
  const [row] = await ctx.db
    .select({
      id: users.id,
      password_hash: users.password_hash,
      practice_id: users.practice_id,
      access_rights: users.access_rights,
      deactivated_at: users.deactivated_at,
    })
    .from(users)
    .where(eq(users.email, manager.email))
    .limit(1)
  const hash = row?.password_hash ?? (await dummyPasswordHash())
  const matches = await ctx.hashing.run(() => verifyPassword(hash, manager.password), 'trusted')
  if (!row || !matches) {
    await throttle.failed(manager.email, ip, at)
    await ctx.audit.record({
      action: 'signin.failure',
      userId: row?.id ?? null,
      practiceId: user.practice_id,
      ip,
      details: { reason: 'wrong_password', purpose: 'visit_approval' },
    })
    throw new ApiError(422, 'ValidationError', VISIT_MESSAGES.approverCredentials)
  }
  if (
    row.practice_id !== user.practice_id ||
    row.deactivated_at ||
    !can(toRole(row.access_rights), 'visits.approve')
  ) {
    throw forbidden(VISIT_MESSAGES.approverNotManager)
  }
  return row.id
}

/** `/visits`. */
export function visitRoutes(ctx: ServerContext) {
  const checkout = createCheckout({
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    publicUrl: ctx.config.publicUrl,
    secret: ctx.config.jwtSecret,
  })

  return new Hono<AppEnv>()
    .use(requireAuth(ctx))
    .post(
      '/approval',
      requirePermission(ctx, 'visits.record'),
      jsonBody(ApprovalRequestSchema),
      async (c) => {
        c.header('Cache-Control', 'no-store')
        const user = c.var.user
        const ip = ctx.clientIp(c)
        const input = c.req.valid('json')
        // Another practice's patient is not found, whoever would approve.
        const [patient] = await ctx.db
          .select({ id: patients.id })
          .from(patients)
          .where(and(eq(patients.id, input.patient_id), eq(patients.practice_id, user.practice_id)))
        if (!patient) throw notFound(LEDGER_MESSAGES.patientNotFound)
        const approverId = await approverOf(ctx, user, ip, input.manager)
        const answer = await checkout.approve(user, approverId, input)
        await ctx.audit.record({
          action: 'visit.approved',
          userId: user.id,
          practiceId: user.practice_id,
          ip,
          details: { patient_id: input.patient_id, member: approverId, reason: input.reason },
        })
        return c.json(answer, 201)
      },
    )
    .post(
      '/preview',
      requirePermission(ctx, 'visits.record'),
      jsonBody(VisitPreviewInputSchema),
      async (c) => {
        c.header('Cache-Control', 'no-store')
        return c.json(await checkout.preview(c.var.user, c.req.valid('json')))
      },
    )
    .post('/', requirePermission(ctx, 'visits.record'), jsonBody(VisitInputSchema), async (c) => {
      const user = c.var.user
      const ip = ctx.clientIp(c)
      const result = await checkout
        .record(user, c.req.valid('json'))
        .catch((error) => auditRefusal(ctx, user, ip, error))
      if (!result.replayed) {
        await ctx.audit.record({
          action: 'visit.recorded',
          userId: user.id,
          practiceId: user.practice_id,
          ip,
          details: auditDetails(result.summary, { visit_id: result.answer.visit.id }),
        })
      }
      return c.json(result.answer, 201)
    })
    .get('/:id', requirePermission(ctx, 'visits.record'), idParams('id'), async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await checkout.read(c.var.user, c.req.valid('param').id))
    })
    .post('/:id/undo', requirePermission(ctx, 'visits.record'), idParams('id'), async (c) => {
      const user = c.var.user
      const { id } = c.req.valid('param')
      const result = await checkout.undo(user, id)
      if (!result.replayed) {
        await ctx.audit.record({
          action: 'visit.undone',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { patient_id: result.patientId, visit_id: id, points: result.points },
        })
      }
      return c.json({ entries: result.entries, balance: result.balance }, 201)
    })
}

/** `/patients/{id}/redemption-code` and `/patients/{id}/redemptions`. */
export function patientRedemptionRoutes(ctx: ServerContext) {
  const checkout = createCheckout({
    db: ctx.db,
    now: ctx.now,
    outbound: ctx.outbound,
    publicUrl: ctx.config.publicUrl,
    secret: ctx.config.jwtSecret,
  })

  return new Hono<AppEnv>()
    .post(
      '/:id/redemption-code',
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionCodeInputSchema),
      async (c) => {
        const user = c.var.user
        const { id } = c.req.valid('param')
        const amount = c.req.valid('json')
        const answer = await checkout.sendCode(user, id, amount)
        await ctx.audit.record({
          action: 'redemption.code_sent',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: {
            patient_id: id,
            points: amount.points ?? null,
            promotion_id: amount.promotion_id ?? null,
          },
        })
        return c.json(answer, 201)
      },
    )
    .post(
      '/:id/redemption-code/check',
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionCodeCheckSchema),
      async (c) => {
        c.header('Cache-Control', 'no-store')
        // Each code has 5 attempts; this bounds how fast one desk can try codes at all.
        const limiter = createRateLimiter(ctx.rateLimitStore)
        refuseWhenLimited(
          await limiter.consume(
            `code-check:user:${c.var.user.id}`,
            CODE_CHECKS_PER_MEMBER,
            ctx.now().getTime(),
          ),
        )
        const { id } = c.req.valid('param')
        return c.json(await checkout.checkCodeFor(c.var.user, id, c.req.valid('json')))
      },
    )
    .post(
      '/:id/redemptions',
      requireAuth(ctx),
      requirePermission(ctx, 'redeem.withCode'),
      idParams('id'),
      jsonBody(RedemptionInputSchema),
      async (c) => {
        const user = c.var.user
        const ip = ctx.clientIp(c)
        const { id } = c.req.valid('param')
        const result = await checkout
          .redeem(user, id, c.req.valid('json'))
          .catch((error) => auditRefusal(ctx, user, ip, error))
        if (!result.replayed) {
          await ctx.audit.record({
            action: 'ledger.posted',
            userId: user.id,
            practiceId: user.practice_id,
            ip,
            details: auditDetails(result.summary, { entry_id: result.entry.id }),
          })
        }
        return c.json({ entry: result.entry, balance: result.balance, bonus: result.bonus }, 201)
      },
    )
}
