import { Hono } from 'hono'
import { StaffMemberSchema } from '#domain/practice-data.ts'
import {
  PhoneChangePayloadSchema,
  PhoneCodePayloadSchema,
  ProfileUpdatePayloadSchema,
  RoleChangePayloadSchema,
} from '#domain/self-service.ts'
import {
  GetCodeAnswerSchema,
  VerifyCodeAnswerSchema,
  VerifyCodeInputSchema,
} from '#domain/sign-up/api.ts'
import { actorOf } from '#server/auth/actor.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { verifying } from '#server/http/verification.ts'
import { issueCode, verifyCode } from '#server/messaging/verification.ts'
import { OTHER_PRACTICE, operation } from '#server/openapi/operation.ts'
import { staffService } from './service.ts'

/**
 * `GET /users` (the user's practice's staff, by name) and `GET /users/{id}`;
 * for an Admin, `PUT /users/{id}/role`, `POST /users/{id}/deactivate` and `/reactivate`:
 * a practice always keeps one active Admin, and a deactivated member's sessions end
 * at once (server/auth/jwt.ts refuses them).
 */
export function userRoutes(ctx: ServerContext) {
  const manage = requirePermission(ctx, 'personnel.manage')
  const staff = staffService(ctx.db, ctx.now)
  const ownProfile = staff.ownProfile
  return (
    new Hono<AppEnv>()
      .use(requireAuth(ctx))
      .get(
        '/',
        operation({
          summary: 'List the staff',
          description: "The signed-in user's practice's staff, by name.",
          tag: 'Personnel',
          responses: { 200: { description: 'The staff.', json: StaffMemberSchema, array: true } },
        }),
        anyStaffMember(),
        async (c) => {
          const rows = await staff.list(c.var.user.practice_id)
          // Colleagues' sign-in times are for the Admin who manages personnel only.
          const admin = c.var.user.access_rights === 'Admin'
          return c.json(admin ? rows : rows.map((row) => ({ ...row, last_sign_in_at: null })))
        },
      )
      .get(
        '/:id',
        operation({
          summary: 'Read a staff member',
          description: "One user of the signed-in user's practice.",
          tag: 'Personnel',
          responses: {
            200: { description: 'The staff member.', json: StaffMemberSchema },
            404: 'No user has this id.',
          },
        }),
        anyStaffMember(),
        idParams('id'),
        async (c) => {
          const { id } = c.req.valid('param')
          const { cell_phone, country_code, ...member } = await staff.memberWithPhone(
            c.var.user,
            id,
          )
          // A colleague's phone stays theirs: My Profile shows the own one.
          return c.json(
            member.id === c.var.user.id ? { ...member, cell_phone, country_code } : member,
          )
        },
      )
      // My Profile's phone change: a code by SMS to the NEW phone, the code checked, and
      // only then the phone saved, the verification consumed in the same transaction.
      .post(
        '/:id/phone/code',
        operation({
          summary: 'Text a code to a new own phone',
          description:
            "My Profile's phone change, step 1: sends a 6-digit code by SMS to the new phone (valid 10 minutes, 30 seconds between codes, 5 an hour), as the sign-up's Get Code does. Only the own id; a colleague's answers 403.",
          tag: 'Personnel',
          responses: {
            200: { description: 'The verification id (`authyId`).', json: GetCodeAnswerSchema },
            404: OTHER_PRACTICE,
            429: 'A code went to this phone less than 30 seconds ago, or 5 this hour.',
          },
        }),
        anyStaffMember(),
        idParams('id'),
        jsonBody(PhoneCodePayloadSchema),
        async (c) => {
          const member = await ownProfile(c.var.user, c.req.valid('param').id)
          const { phone, countryCode } = c.req.valid('json')
          return c.json(
            await verifying(() =>
              issueCode(
                { db: ctx.db, outbound: ctx.outbound, now: ctx.now },
                { email: member.email, phone, countryCode },
              ),
            ),
          )
        },
      )
      .post(
        '/:id/phone/verify',
        operation({
          summary: 'Check the code sent to a new own phone',
          description:
            "My Profile's phone change, step 2: checks the code (5 attempts). 400 `Incorrect Confirmation Code entered`, or a sentence saying the code expired.",
          tag: 'Personnel',
          responses: {
            200: { description: 'Verified.', json: VerifyCodeAnswerSchema },
            404: OTHER_PRACTICE,
            429: 'Too many incorrect codes: get a new one.',
          },
        }),
        anyStaffMember(),
        idParams('id'),
        jsonBody(VerifyCodeInputSchema),
        async (c) => {
          await ownProfile(c.var.user, c.req.valid('param').id)
          const input = c.req.valid('json')
          await verifying(() => verifyCode({ db: ctx.db, now: ctx.now }, input))
          return c.json({ verified: true as const })
        },
      )
      .put(
        '/:id/phone',
        operation({
          summary: 'Save a verified new own phone',
          description:
            "My Profile's phone change, step 3: saves the phone only with a verification (`authyId`) whose code was checked for this very phone and not used before (400 otherwise). Audited.",
          tag: 'Personnel',
          responses: {
            200: { description: 'The member with the new phone.', json: StaffMemberSchema },
            404: OTHER_PRACTICE,
          },
        }),
        anyStaffMember(),
        idParams('id'),
        jsonBody(PhoneChangePayloadSchema),
        async (c) => {
          const actor = actorOf(ctx, c)
          return c.json(
            await staff.changePhone(actor, c.req.valid('param').id, c.req.valid('json')),
          )
        },
      )
      .put(
        '/:id',
        operation({
          summary: 'Edit the own profile',
          description:
            "My Profile: the signed-in member's title, first and last name (the sign-up's name rules). Only the own id; a colleague's answers 403.",
          tag: 'Personnel',
          responses: {
            200: { description: 'The member.', json: StaffMemberSchema },
            404: OTHER_PRACTICE,
          },
        }),
        anyStaffMember(),
        idParams('id'),
        jsonBody(ProfileUpdatePayloadSchema),
        async (c) => {
          const actor = actorOf(ctx, c)
          const { id } = c.req.valid('param')
          return c.json(await staff.updateProfile(actor, id, c.req.valid('json')))
        },
      )
      .put(
        '/:id/role',
        operation({
          summary: "Change a member's role",
          description:
            'Admin only. `access_rights` is Admin, Manager or Staff; it applies to the next request of the member. Changing to the same role is harmless.',
          tag: 'Personnel',
          responses: {
            200: { description: 'The member.', json: StaffMemberSchema },
            404: OTHER_PRACTICE,
            409: 'The member is the last active Admin of the practice.',
          },
        }),
        manage,
        idParams('id'),
        jsonBody(RoleChangePayloadSchema),
        async (c) => {
          const actor = actorOf(ctx, c)
          const { id } = c.req.valid('param')
          return c.json(await staff.changeRole(actor, id, c.req.valid('json').access_rights))
        },
      )
      .post(
        '/:id/deactivate',
        operation({
          summary: 'Deactivate a member',
          description:
            'Admin only. The member cannot sign in, and every open session of theirs is refused from the next request. Deactivating twice is harmless.',
          tag: 'Personnel',
          responses: {
            200: { description: 'The member.', json: StaffMemberSchema },
            404: OTHER_PRACTICE,
            409: 'The member is the caller, or the last active Admin of the practice.',
          },
        }),
        manage,
        idParams('id'),
        async (c) => {
          const actor = actorOf(ctx, c)
          return c.json(await staff.deactivate(actor, c.req.valid('param').id))
        },
      )
      .post(
        '/:id/reactivate',
        operation({
          summary: 'Reactivate a member',
          description:
            'Admin only. The member may sign in again; sessions from before the deactivation stay ended.',
          tag: 'Personnel',
          responses: {
            200: { description: 'The member.', json: StaffMemberSchema },
            404: OTHER_PRACTICE,
          },
        }),
        manage,
        idParams('id'),
        async (c) => {
          const actor = actorOf(ctx, c)
          return c.json(await staff.reactivate(actor, c.req.valid('param').id))
        },
      )
  )
}
