import { and, asc, eq, isNull, ne, or, type SQL } from 'drizzle-orm'
import { Hono } from 'hono'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import { StaffMemberSchema } from '#domain/practice-data.ts'
import {
  PhoneChangePayloadSchema,
  PhoneCodePayloadSchema,
  ProfileUpdatePayloadSchema,
  RoleChangePayloadSchema,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'
import {
  GetCodeAnswerSchema,
  VerifyCodeAnswerSchema,
  VerifyCodeInputSchema,
} from '#domain/sign-up/api.ts'
import { requireAuth } from '#server/auth/jwt.ts'
import { anyStaffMember, requirePermission } from '#server/auth/permissions.ts'
import type { AppEnv, AuthUser, ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { lockUsers } from '#server/db/locks.ts'
import { users } from '#server/db/schema.ts'
import { ApiError, badRequest, conflict, forbidden } from '#server/http/errors.ts'
import { ownRow } from '#server/http/scope.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import {
  consumeVerification,
  issueCode,
  phoneDigits,
  VerificationError,
  verifyCode,
} from '#server/messaging/verification.ts'
import { OTHER_PRACTICE, operation } from '#server/openapi/operation.ts'

/** The columns of a staff answer (domain `StaffMemberSchema`): never the password hash. */
export const staffColumns = {
  id: users.id,
  practice_id: users.practice_id,
  email: users.email,
  title: users.title,
  first_name: users.first_name,
  last_name: users.last_name,
  position: users.position,
  access_rights: users.access_rights,
  image_path: users.image_path,
  deactivated_at: users.deactivated_at,
  last_sign_in_at: users.last_sign_in_at,
}

/** The own phone, answered on the member's own row only (My Profile). */
const ownPhoneColumns = { cell_phone: users.cell_phone, country_code: users.country_code }

/** A verification failure as the API answers it: 400, or 429 with when to try again. */
function verificationFailure(error: VerificationError): ApiError {
  return error.status === 429
    ? new ApiError(429, API_ERROR_NAMES.rateLimit, error.message, {
        retryAfterSeconds: error.retryAfterSeconds ?? 60,
      })
    : badRequest(error.message)
}

/** Runs a verification step, answering its failure as the API does. */
async function verifying<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    if (error instanceof VerificationError) throw verificationFailure(error)
    throw error
  }
}

/**
 * The member `id` of the signed-in user's practice, its row locked for the rest of `tx`; 404 for
 * an unknown id and another practice's alike.
 */
async function lockMember(tx: Transaction, user: AuthUser, id: number) {
  const [row] = await tx.select(staffColumns).from(users).where(eq(users.id, id)).for('update')
  return ownRow(user, row, 'User')
}

/**
 * The member `id` of the signed-in user's practice and the practice's active Admins, all locked
 * for the rest of `tx` in one statement, in id order (server/db/locks.ts); 404 for an unknown id
 * and another practice's alike. Every path that changes an Admin locks this one set in this one
 * order: two Admins demoting or deactivating each other at once (on one process or two) wait for
 * each other instead of each holding one row and waiting for the other's (a deadlock, issue 30).
 */
async function lockMemberAndAdmins(tx: Transaction, user: AuthUser, id: number) {
  const rows = await lockUsers(
    tx,
    staffColumns,
    or(
      eq(users.id, id),
      and(
        eq(users.practice_id, user.practice_id),
        eq(users.access_rights, 'Admin'),
        isNull(users.deactivated_at),
      ),
    ) as SQL,
  )
  const member = ownRow(
    user,
    rows.find((row) => row.id === id),
    'User',
  )
  // Read after the locks: an Admin demoted or deactivated while this waited is not among them.
  const admins = rows.filter(
    (row) =>
      row.practice_id === user.practice_id &&
      row.access_rights === 'Admin' &&
      row.deactivated_at === null,
  )
  return { member, admins }
}

/** Refuses (409) a change that would leave the practice without an active Admin. */
function keepOneAdmin(admins: readonly { id: number }[], leaving: number): void {
  if (!admins.some((admin) => admin.id !== leaving)) throw conflict(SELF_SERVICE_MESSAGES.lastAdmin)
}

/**
 * The signed-in member's own row; 404 for an unknown id or another practice's, 403 for a
 * colleague's.
 */
async function ownProfileOf(db: ServerContext['db'], user: AuthUser, id: number) {
  const [row] = await db.select(staffColumns).from(users).where(eq(users.id, id)).limit(1)
  const member = ownRow(user, row, 'User')
  if (member.id !== user.id) throw forbidden(SELF_SERVICE_MESSAGES.ownProfileOnly)
  return member
}

/**
 * `GET /users` (the user's practice's staff, by name) and `GET /users/{id}` (spec section 7);
 * for an Admin, `PUT /users/{id}/role`, `POST /users/{id}/deactivate` and `/reactivate`
 * (issue 19): a practice always keeps one active Admin, and a deactivated member's sessions end
 * at once (server/auth/jwt.ts refuses them).
 */
export function userRoutes(ctx: ServerContext) {
  const manage = requirePermission(ctx, 'personnel.manage')
  const ownProfile = (user: AuthUser, id: number) => ownProfileOf(ctx.db, user, id)
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
          const rows = await ctx.db
            .select(staffColumns)
            .from(users)
            .where(eq(users.practice_id, c.var.user.practice_id))
            .orderBy(asc(users.last_name), asc(users.first_name), asc(users.id))
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
          const [row] = await ctx.db
            .select({ ...staffColumns, ...ownPhoneColumns })
            .from(users)
            .where(eq(users.id, id))
            .limit(1)
          const { cell_phone, country_code, ...member } = ownRow(c.var.user, row, 'User')
          // A colleague's phone stays theirs: My Profile shows the own one.
          return c.json(
            member.id === c.var.user.id ? { ...member, cell_phone, country_code } : member,
          )
        },
      )
      // My Profile's phone change (issue 19): a code by SMS to the NEW phone, the code checked, and
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
          const user = c.var.user
          const member = await ownProfile(user, c.req.valid('param').id)
          const input = c.req.valid('json')
          const phone = phoneDigits(input.cell_phone)
          const [current] = await ctx.db
            .select(ownPhoneColumns)
            .from(users)
            .where(eq(users.id, member.id))
          if (current?.cell_phone === phone) throw badRequest(SELF_SERVICE_MESSAGES.phoneUnchanged)
          const updated = await ctx.db.transaction(async (tx) => {
            // The client's word is not enough: the code sent to this very phone must be verified.
            try {
              await consumeVerification(tx, { authyId: input.authyId, phone }, ctx.now())
            } catch (error) {
              if (error instanceof VerificationError) {
                throw badRequest(SELF_SERVICE_MESSAGES.phoneNotVerified)
              }
              throw error
            }
            const [row] = await tx
              .update(users)
              .set({ cell_phone: phone, country_code: input.country_code })
              .where(eq(users.id, member.id))
              .returning({ ...staffColumns, ...ownPhoneColumns })
            return row
          })
          await ctx.audit.record({
            action: 'user.phone_changed',
            userId: user.id,
            practiceId: user.practice_id,
            ip: ctx.clientIp(c),
            details: { member: member.id },
          })
          return c.json(updated)
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
          const { id } = c.req.valid('param')
          const input = c.req.valid('json')
          const user = c.var.user
          const [row] = await ctx.db
            .select(staffColumns)
            .from(users)
            .where(eq(users.id, id))
            .limit(1)
          const member = ownRow(user, row, 'User')
          // My Profile: each member edits their own names; nobody edits a colleague's.
          if (member.id !== user.id) throw forbidden(SELF_SERVICE_MESSAGES.ownProfileOnly)
          const title = input.title.trim() === '' ? null : input.title.trim()
          const changed = [
            ...(title !== member.title ? ['title'] : []),
            ...(input.first_name !== member.first_name ? ['first_name'] : []),
            ...(input.last_name !== member.last_name ? ['last_name'] : []),
          ]
          if (changed.length === 0) return c.json(member)
          const [updated] = await ctx.db
            .update(users)
            .set({ title, first_name: input.first_name, last_name: input.last_name })
            .where(eq(users.id, id))
            .returning(staffColumns)
          // The fields' names only, never their values.
          await ctx.audit.record({
            action: 'user.profile_updated',
            userId: user.id,
            practiceId: user.practice_id,
            ip: ctx.clientIp(c),
            details: { fields: changed.join(',') },
          })
          return c.json(updated)
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
          const { id } = c.req.valid('param')
          const { access_rights } = c.req.valid('json')
          const user = c.var.user
          const { row, from } = await ctx.db.transaction(async (tx) => {
            const { member, admins } = await lockMemberAndAdmins(tx, user, id)
            if (member.access_rights === access_rights) return { row: member, from: access_rights }
            if (member.access_rights === 'Admin' && !member.deactivated_at) keepOneAdmin(admins, id)
            const [updated] = await tx
              .update(users)
              .set({ access_rights })
              .where(eq(users.id, id))
              .returning(staffColumns)
            if (!updated) throw new Error('member disappeared')
            return { row: updated, from: member.access_rights }
          })
          if (from !== access_rights) {
            await ctx.audit.record({
              action: 'user.role_changed',
              userId: user.id,
              practiceId: user.practice_id,
              ip: ctx.clientIp(c),
              details: { member: id, from, to: access_rights },
            })
          }
          return c.json(row)
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
          const { id } = c.req.valid('param')
          const user = c.var.user
          const { row, changed } = await ctx.db.transaction(async (tx) => {
            const { member, admins } = await lockMemberAndAdmins(tx, user, id)
            if (member.id === user.id) throw conflict(SELF_SERVICE_MESSAGES.ownAccount)
            if (member.deactivated_at) return { row: member, changed: false }
            if (member.access_rights === 'Admin') keepOneAdmin(admins, id)
            const now = ctx.now()
            // Both: the session check refuses a deactivated member, and the tokens made before now
            // stay dead after a reactivation.
            const [updated] = await tx
              .update(users)
              .set({ deactivated_at: now, tokens_valid_after: now })
              .where(and(eq(users.id, id), ne(users.id, user.id)))
              .returning(staffColumns)
            if (!updated) throw new Error('member disappeared')
            return { row: updated, changed: true }
          })
          if (changed) {
            await ctx.audit.record({
              action: 'user.deactivated',
              userId: user.id,
              practiceId: user.practice_id,
              ip: ctx.clientIp(c),
              details: { member: id },
            })
          }
          return c.json(row)
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
          const { id } = c.req.valid('param')
          const user = c.var.user
          const { row, changed } = await ctx.db.transaction(async (tx) => {
            const member = await lockMember(tx, user, id)
            if (!member.deactivated_at) return { row: member, changed: false }
            const [updated] = await tx
              .update(users)
              .set({ deactivated_at: null })
              .where(eq(users.id, id))
              .returning(staffColumns)
            if (!updated) throw new Error('member disappeared')
            return { row: updated, changed: true }
          })
          if (changed) {
            await ctx.audit.record({
              action: 'user.reactivated',
              userId: user.id,
              practiceId: user.practice_id,
              ip: ctx.clientIp(c),
              details: { member: id },
            })
          }
          return c.json(row)
        },
      )
  )
}
