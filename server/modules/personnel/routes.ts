import { Hono } from 'hono'
import { RegisteredUserAnswerSchema } from '#domain/api-answers.ts'
import { AUTH_MESSAGES } from '#domain/auth.ts'
import {
  InvitePersonnelInputSchema,
  PersonnelInvitationSchema,
  PersonnelRegisterPayloadSchema,
} from '#domain/personnel.ts'
import { InvitationPreviewSchema } from '#domain/practice-data.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { refuseWhenLimited } from '#server/http/rate-limited.ts'
import { jsonBody } from '#server/http/validate.ts'
import { operation, TOO_MANY, tokenParam } from '#server/openapi/operation.ts'
import {
  createMemoryRateLimitStore,
  createRateLimiter,
  type RateLimitStore,
} from '#server/security/rate-limit.ts'
import { invitationService } from './invitation-service.ts'

/** Per-IP limit of the public registration call. */
export const PERSONNEL_REGISTER_LIMIT = { max: 30, windowMs: 60 * 60 * 1000 } as const

/** Resends of one invitation's e-mail (30 resends reached one mailbox in 249 ms). */
export const INVITATION_RESEND_LIMIT = { max: 3, windowMs: 60 * 60 * 1000 } as const

/** The 429 of a resend beyond {@link INVITATION_RESEND_LIMIT}. */
export const PERSONNEL_RESEND_TOO_SOON =
  'This invitation was sent several times in the last hour. Please try again later.'

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
  const invitations = invitationService(ctx)

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
      async (c) => c.json(await invitations.list(c.var.user)),
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
      async (c) => c.json(await invitations.invite(actorOf(ctx, c), c.req.valid('json')), 201),
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
        const row = await invitations.resendable(user, c.req.param('id'))
        // One person's mailbox is not a target: a few resends an hour per invitation.
        const key = `personnel:resend:${row.id}`
        const decision = await limiter.consume(key, INVITATION_RESEND_LIMIT, ctx.now().getTime())
        refuseWhenLimited(decision, PERSONNEL_RESEND_TOO_SOON)
        return c.json(await invitations.resend(user, row))
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
      async (c) => c.json(await invitations.revoke(c.var.user, c.req.param('id'))),
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
      async (c) => c.json(await invitations.preview(c.req.param('id'))),
    )
}

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
  const invitations = invitationService(ctx)

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
      const ip = ctx.clientIp(c)
      refuseWhenLimited(
        await limiter.consume(
          `personnel-register:ip:${ip}`,
          PERSONNEL_REGISTER_LIMIT,
          ctx.now().getTime(),
        ),
        AUTH_MESSAGES.tooManyAttempts,
      )
      return c.json({ user: await invitations.register(c.req.valid('json'), ip) })
    },
  )
}
