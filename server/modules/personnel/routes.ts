import { and, asc, desc, eq, gt } from 'drizzle-orm'
import { Hono } from 'hono'
import { RegisteredUserAnswerSchema } from '#domain/api-answers.ts'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { toRole } from '#domain/permissions.ts'
import {
  INVITATION_ID_MAX_LENGTH,
  INVITATION_TTL_DAYS,
  type InvitationClosedDetails,
  InvitationClosedError,
  type InvitationStatus,
  InvitePersonnelInputSchema,
  invitationStatus,
  PERSONNEL_MESSAGES,
  type PersonnelInvitation,
  PersonnelInvitationSchema,
  PersonnelRegisterPayloadSchema,
} from '#domain/personnel.ts'
import { type InvitationPreview, InvitationPreviewSchema } from '#domain/practice-data.ts'
import type { SessionUser } from '#domain/session.ts'
import { DAY_MS } from '#domain/time.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import { SESSION_USER_COLUMNS } from '#server/auth/session-answer.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { personnelInvitations, practices, users } from '#server/db/schema.ts'
import { ApiError, badRequest, conflict, notFound } from '#server/http/errors.ts'
import { jsonBody } from '#server/http/validate.ts'
import { maskEmail } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { templateMail } from '#server/messaging/outbound.ts'
import {
  consumeVerification,
  phoneDigits,
  VerificationError,
} from '#server/messaging/verification.ts'
import { operation, TOO_MANY, tokenParam } from '#server/openapi/operation.ts'
import { hashPassword } from '#server/security/passwords.ts'
import {
  createMemoryRateLimitStore,
  createRateLimiter,
  type RateLimitStore,
} from '#server/security/rate-limit.ts'
import { invitationEmail } from './invitation-email.ts'

/** Per-IP limit of the public registration call. */
export const PERSONNEL_REGISTER_LIMIT = { max: 30, windowMs: 60 * 60 * 1000 } as const

/** Resends of one invitation's e-mail (30 resends reached one mailbox in 249 ms). */
export const INVITATION_RESEND_LIMIT = { max: 3, windowMs: 60 * 60 * 1000 } as const

/** The 429 of a resend beyond {@link INVITATION_RESEND_LIMIT}. */
export const PERSONNEL_RESEND_TOO_SOON =
  'This invitation was sent several times in the last hour. Please try again later.'

/** Invitation ids are base64url; anything else cannot be one and answers 404 at once. */
const INVITATION_ID = new RegExp(`^[\\w-]{1,${INVITATION_ID_MAX_LENGTH}}$`)

type InvitationRow = typeof personnelInvitations.$inferSelect

/** An invitation as the API answers it; the id (the link's secret) only for an Admin. */
function toInvitation(row: InvitationRow, now: Date, withId: boolean): PersonnelInvitation {
  return {
    ...(withId ? { id: row.id } : {}),
    email: row.email,
    title: row.title,
    first_name: row.first_name,
    last_name: row.last_name,
    position: row.position,
    status: invitationStatus(storedStatus(row.status), row.expires_at, now),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  }
}

function storedStatus(status: string): 'pending' | 'used' | 'revoked' {
  return status === 'used' || status === 'revoked' ? status : 'pending'
}

function isOpen(row: InvitationRow, now: Date): boolean {
  const status: InvitationStatus = invitationStatus(storedStatus(row.status), row.expires_at, now)
  return status === 'pending'
}

const invitationGone = () => notFound(PERSONNEL_MESSAGES.invitationNotFound)

/** The registration link of an invitation: `{PUBLIC_URL}/signup/personnel/{id}`. */
export function invitationLink(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/signup/personnel/${id}`
}

/**
 * The Personnel area's calls, mounted at `/api/personnel`:
 * - `GET /` (auth): the practice's invitations, newest first, with status pending, used, revoked
 *   or expired; the ids (the links' secret) only for an Admin.
 * - `POST /` (Admin, else 403) `{email, first_name, last_name, position, title?}`: 201 with the
 *   invitation; its id is 256 random bits, it expires after 14 days and the link
 *   `{PUBLIC_URL}/signup/personnel/{id}` is e-mailed through the mail service. 409 when the e-mail
 *   already has an account or a pending invitation of this practice.
 * - `POST /{id}/resend` (Admin of the same practice): e-mails the link again and restarts the 14
 *   days; 409 for a used or revoked invitation.
 * - `DELETE /{id}` (Admin of the same practice): revokes a pending invitation; 409 when used.
 * - `GET /{id}` (public): `{first_name, last_name, email, position, title}` to pre-fill the
 *   registration and the practice's name; 410 for a used or expired invitation (`details.reason`,
 *   `details.practice_name`), 404 for an unknown or revoked one.
 */
export function personnelRoutes(ctx: ServerContext) {
  const auth = requireAuth(ctx)
  const manage = requirePermission(ctx, 'personnel.manage')

  const limiter = createRateLimiter(ctx.rateLimitStore)

  /** Queues the invitation e-mail in `tx`, the transaction that created or renewed `row`. */
  async function queueInvitation(tx: Transaction, row: InvitationRow, inviterId: number) {
    const [practice] = await tx
      .select({ name: practices.practice_name })
      .from(practices)
      .where(eq(practices.id, row.practice_id))
      .limit(1)
    const [inviter] = await tx
      .select({ first_name: users.first_name, last_name: users.last_name })
      .from(users)
      .where(eq(users.id, inviterId))
      .limit(1)
    const practiceName = practice?.name ?? 'your practice'
    const who = inviter ? `${inviter.first_name} ${inviter.last_name}` : 'Your practice'
    const link = invitationLink(ctx.config.publicUrl, row.id)
    await ctx.outbound.enqueue(
      tx,
      templateMail(invitationEmail, row.email, {
        firstName: row.first_name,
        practiceName,
        inviter: who,
        link,
        days: INVITATION_TTL_DAYS,
      }),
    )
  }

  /** The invitation `id` of the Admin's own practice: 404 when unknown or another practice's. */
  async function ownInvitation(user: AuthUser, id: string): Promise<InvitationRow> {
    if (!INVITATION_ID.test(id)) throw notFound('Invitation not found.')
    const [row] = await ctx.db
      .select()
      .from(personnelInvitations)
      .where(eq(personnelInvitations.id, id))
      .limit(1)
    // Another practice's invitation answers as an unknown one: ids cannot be counted.
    if (!row || row.practice_id !== user.practice_id) throw notFound('Invitation not found.')
    return row
  }

  return new Hono<AppEnv>()
    .get(
      '/',
      operation({
        summary: 'List invitations',
        description:
          "The practice's invitations, newest first; the ids (the links' secret) only for an Admin.",
        tag: 'Personnel',
        responses: {
          200: { description: 'The invitations.', json: PersonnelInvitationSchema, array: true },
        },
      }),
      auth,
      anyStaffMember(),
      async (c) => {
        const user = c.var.user
        const rows = await ctx.db
          .select()
          .from(personnelInvitations)
          .where(eq(personnelInvitations.practice_id, user.practice_id))
          .orderBy(desc(personnelInvitations.created_at), asc(personnelInvitations.email))
        const now = ctx.now()
        return c.json(rows.map((row) => toInvitation(row, now, user.access_rights === 'Admin')))
      },
    )
    .post(
      '/',
      operation({
        summary: 'Invite a colleague',
        description:
          'Admin only. E-mails the registration link `{PUBLIC_URL}/signup/personnel/{id}`, valid for 14 days.',
        tag: 'Personnel',
        responses: {
          201: { description: 'The invitation.', json: PersonnelInvitationSchema },
          409: 'The e-mail already has an account or a pending invitation.',
          502: 'The invitation e-mail could not be sent.',
        },
      }),
      auth,
      manage,
      jsonBody(InvitePersonnelInputSchema),
      async (c) => {
        const user = c.var.user
        const body = c.req.valid('json')
        const email = body.email.trim().toLowerCase()
        const now = ctx.now()
        const [account] = await ctx.db
          .select({ id: users.id })
          .from(users)
          .where(eq(users.email, email))
          .limit(1)
        if (account) throw conflict(PERSONNEL_MESSAGES.emailHasAccount)
        const [pending] = await ctx.db
          .select({ id: personnelInvitations.id })
          .from(personnelInvitations)
          .where(
            and(
              eq(personnelInvitations.practice_id, user.practice_id),
              eq(personnelInvitations.email, email),
              eq(personnelInvitations.status, 'pending'),
              gt(personnelInvitations.expires_at, now),
            ),
          )
          .limit(1)
        if (pending) throw conflict(PERSONNEL_MESSAGES.alreadyInvited)
        const row = await ctx.db.transaction(async (tx) => {
          const [created] = await tx
            .insert(personnelInvitations)
            .values({
              // 256 random bits: the link is the only proof that a person was invited.
              id: randomToken(32),
              practice_id: user.practice_id,
              invited_by: user.id,
              email,
              title: body.title?.trim() || null,
              first_name: body.first_name.trim(),
              last_name: body.last_name.trim(),
              position: body.position,
              status: 'pending',
              expires_at: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
              created_at: now,
            })
            .returning()
          if (!created) throw new Error('invitation row was not created')
          // The e-mail is queued with the invitation: both exist, or neither does.
          await queueInvitation(tx, created, user.id)
          return created
        })
        ctx.outbound.kick()
        await ctx.audit.record({
          action: 'invitation.created',
          userId: user.id,
          practiceId: user.practice_id,
          ip: ctx.clientIp(c),
          details: { invited_email: maskEmail(email), position: row.position },
        })
        return c.json(toInvitation(row, now, true), 201)
      },
    )
    .post(
      '/:id/resend',
      operation({
        summary: 'Send an invitation again',
        description: 'Admin of the same practice. E-mails the link again and restarts its 14 days.',
        tag: 'Personnel',
        path: { id: tokenParam('The invitation id.') },
        responses: {
          200: { description: 'The invitation.', json: PersonnelInvitationSchema },
          404: 'Invitation not found.',
          409: 'The invitation is used or revoked.',
          429: 'The invitation was resent 3 times in the last hour.',
          502: 'The invitation e-mail could not be sent.',
        },
      }),
      auth,
      manage,
      async (c) => {
        const user = c.var.user
        const row = await ownInvitation(user, c.req.param('id'))
        if (row.status === 'used') throw conflict(PERSONNEL_MESSAGES.invitationUsed)
        if (row.status === 'revoked') throw conflict('This invitation was revoked.')
        const now = ctx.now()
        // One person's mailbox is not a target: a few resends an hour per invitation.
        const decision = await limiter.consume(
          `personnel:resend:${row.id}`,
          INVITATION_RESEND_LIMIT,
          now.getTime(),
        )
        if (!decision.allowed) {
          throw new ApiError(429, API_ERROR_NAMES.rateLimit, PERSONNEL_RESEND_TOO_SOON, {
            retryAfterSeconds: decision.retryAfterSeconds,
          })
        }
        const updated = await ctx.db.transaction(async (tx) => {
          const [renewed] = await tx
            .update(personnelInvitations)
            .set({ expires_at: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS) })
            .where(
              and(eq(personnelInvitations.id, row.id), eq(personnelInvitations.status, 'pending')),
            )
            .returning()
          if (!renewed) throw conflict(PERSONNEL_MESSAGES.invitationUsed)
          await queueInvitation(tx, renewed, user.id)
          return renewed
        })
        ctx.outbound.kick()
        return c.json(toInvitation(updated, now, true))
      },
    )
    .delete(
      '/:id',
      operation({
        summary: 'Revoke an invitation',
        description: 'Admin of the same practice. Revoking twice is harmless.',
        tag: 'Personnel',
        path: { id: tokenParam('The invitation id.') },
        responses: {
          200: { description: 'The revoked invitation.', json: PersonnelInvitationSchema },
          404: 'Invitation not found.',
          409: 'The invitation is already used.',
        },
      }),
      auth,
      manage,
      async (c) => {
        const user = c.var.user
        const row = await ownInvitation(user, c.req.param('id'))
        const now = ctx.now()
        if (row.status === 'used') throw conflict(PERSONNEL_MESSAGES.invitationUsed)
        if (row.status === 'revoked') return c.json(toInvitation(row, now, true))
        const [updated] = await ctx.db
          .update(personnelInvitations)
          .set({ status: 'revoked' })
          .where(
            and(eq(personnelInvitations.id, row.id), eq(personnelInvitations.status, 'pending')),
          )
          .returning()
        if (!updated) throw conflict(PERSONNEL_MESSAGES.invitationUsed)
        return c.json(toInvitation(updated, now, true))
      },
    )
    .get(
      '/:id',
      operation({
        summary: 'Preview an invitation',
        description: 'What the registration form pre-fills. Public: the link is the key.',
        tag: 'Personnel',
        public: true,
        path: { id: tokenParam('The invitation id of the link.') },
        responses: {
          200: {
            description: 'The invitation preview, with the name of the practice it joins.',
            json: InvitationPreviewSchema,
          },
          404: 'The invitation is unknown or was revoked.',
          410: 'The invitation was used or has expired: `details.reason` is `used` or `expired`, `details.practice_name` names the practice (an expired one says who can send a new one).',
        },
      }),
      async (c) => {
        const id = c.req.param('id')
        if (!INVITATION_ID.test(id)) throw invitationGone()
        const [found] = await ctx.db
          .select({ row: personnelInvitations, practice_name: practices.practice_name })
          .from(personnelInvitations)
          .innerJoin(practices, eq(practices.id, personnelInvitations.practice_id))
          .where(eq(personnelInvitations.id, id))
          .limit(1)
        if (!found) throw invitationGone()
        const { row, practice_name } = found
        const status = invitationStatus(storedStatus(row.status), row.expires_at, ctx.now())
        // The link is a 256-bit secret: saying that its invitation was used or has expired (and
        // whose it is) tells nothing to someone who does not already hold it.
        if (status === 'used' || status === 'expired') {
          const details: InvitationClosedDetails = { reason: status, practice_name }
          throw new ApiError(
            410,
            API_ERROR_NAMES.gone,
            new InvitationClosedError(details).message,
            details,
          )
        }
        if (status !== 'pending') throw invitationGone()
        const preview: InvitationPreview = {
          first_name: row.first_name,
          last_name: row.last_name,
          email: row.email,
          position: row.position,
          title: row.title,
          practice_name,
        }
        return c.json(preview)
      },
    )
}

const registeredColumns = SESSION_USER_COLUMNS

/** Options of {@link personnelRegisterRoutes}. */
export type PersonnelRegisterRouteOptions = {
  /** Where the per-IP counters live; in memory by default. */
  rateLimitStore?: RateLimitStore
}

/**
 * `POST /auth/personnel/register` (mounted under `/api/auth`): an invited person creates an
 * account from the spec's personnel model. Every field is re-validated with the domain rules; the
 * e-mail and position are the invitation's, never the body's. The phone must be verified under
 * `authyId` and not used before (400 otherwise). The user joins the inviting practice with access
 * rights Staff; the invitation becomes used and the verification consumed, all in one
 * transaction. 200 `{user}`. An unknown, used, revoked or expired invitation answers 404; an
 * e-mail that meanwhile has an account answers 409.
 */
export function personnelRegisterRoutes(
  ctx: ServerContext,
  options: PersonnelRegisterRouteOptions = {},
) {
  const limiter = createRateLimiter(options.rateLimitStore ?? createMemoryRateLimitStore())

  return new Hono<AppEnv>().post(
    '/personnel/register',
    operation({
      summary: 'Register from an invitation',
      description:
        "Creates an invited person's account (Staff) in the inviting practice; the e-mail and position are the invitation's. Needs the phone verified under `authyId`.",
      tag: 'Personnel',
      public: true,
      responses: {
        200: { description: 'The new user.', json: RegisteredUserAnswerSchema },
        400: 'A refused field or an unverified phone.',
        404: 'The invitation is unknown, used, revoked or expired.',
        409: 'The e-mail already has an account.',
        429: TOO_MANY,
      },
    }),
    jsonBody(PersonnelRegisterPayloadSchema),
    async (c) => {
      const decision = await limiter.consume(
        `personnel-register:ip:${ctx.clientIp(c)}`,
        PERSONNEL_REGISTER_LIMIT,
        ctx.now().getTime(),
      )
      if (!decision.allowed) {
        throw new ApiError(
          429,
          API_ERROR_NAMES.rateLimit,
          'Too many attempts. Please wait a few minutes and try again.',
          { retryAfterSeconds: decision.retryAfterSeconds },
        )
      }
      const body = c.req.valid('json')
      if (!INVITATION_ID.test(body.id)) throw invitationGone()
      const [invitation] = await ctx.db
        .select()
        .from(personnelInvitations)
        .where(eq(personnelInvitations.id, body.id))
        .limit(1)
      if (!invitation || !isOpen(invitation, ctx.now())) throw invitationGone()
      const [account] = await ctx.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.email, invitation.email))
        .limit(1)
      if (account) throw conflict(PERSONNEL_MESSAGES.emailHasAccount)
      const passwordHash = await ctx.hashing.run(() => hashPassword(body.password))

      const user = await ctx.db.transaction(async (tx) => {
        const at = ctx.now()
        // The row lock makes two registrations with one link wait for each other; the second
        // then finds the invitation used.
        const [locked] = await tx
          .select()
          .from(personnelInvitations)
          .where(eq(personnelInvitations.id, invitation.id))
          .for('update')
        if (!locked || !isOpen(locked, at)) throw invitationGone()
        try {
          await consumeVerification(tx, { authyId: body.authyId, phone: body.cell_phone }, at)
        } catch (error) {
          if (error instanceof VerificationError) throw badRequest(error.message)
          throw error
        }
        const [created] = await tx
          .insert(users)
          .values({
            practice_id: locked.practice_id,
            email: locked.email,
            username: locked.email,
            password_hash: passwordHash,
            title: body.title.trim() || null,
            first_name: body.first_name.trim(),
            last_name: body.last_name.trim(),
            cell_phone: phoneDigits(body.cell_phone),
            country_code: body.country_code,
            position: locked.position,
            access_rights: 'Staff',
            created_at: at,
          })
          .onConflictDoNothing({ target: users.email })
          .returning(registeredColumns)
        if (!created) throw conflict(PERSONNEL_MESSAGES.emailHasAccount)
        await tx
          .update(personnelInvitations)
          .set({ status: 'used', used_at: at })
          .where(eq(personnelInvitations.id, locked.id))
        return created
      })

      await ctx.audit.record({
        action: 'invitation.used',
        userId: user.id,
        practiceId: user.practice_id,
        ip: ctx.clientIp(c),
      })
      const answer: SessionUser = {
        id: user.id,
        email: user.email,
        ...(user.username ? { username: user.username } : {}),
        title: user.title,
        first_name: user.first_name,
        last_name: user.last_name,
        image_path: user.image_path,
        position: user.position,
        access_rights: toRole(user.access_rights),
        practice_id: user.practice_id,
      }
      return c.json({ user: answer })
    },
  )
}
