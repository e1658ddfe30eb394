import { and, asc, eq, isNull, ne, or, type SQL } from 'drizzle-orm'
import {
  type PhoneChangePayload,
  type ProfileUpdatePayload,
  type RoleChangePayload,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { lockUsers } from '#server/db/locks.ts'
import { users } from '#server/db/schema.ts'
import { badRequest, conflict, forbidden } from '#server/http/errors.ts'
import { type AuthUser, ownRow } from '#server/http/scope.ts'
import { consumeVerification, VerificationError } from '#server/messaging/verification.ts'

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
 * each other instead of each holding one row and waiting for the other's (a deadlock).
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
async function ownProfileOf(db: Database, user: AuthUser, id: number) {
  const [row] = await db.select(staffColumns).from(users).where(eq(users.id, id)).limit(1)
  const member = ownRow(user, row, 'User')
  if (member.id !== user.id) throw forbidden(SELF_SERVICE_MESSAGES.ownProfileOnly)
  return member
}

/**
 * The staff's use cases, on one database: who reads which member, and each change with the locks
 * and the rules it needs. The routes parse, audit what changed and answer.
 */
export function staffService(db: Database, now: () => Date) {
  return {
    /** The practice's staff, by name. */
    list(practiceId: number) {
      return db
        .select(staffColumns)
        .from(users)
        .where(eq(users.practice_id, practiceId))
        .orderBy(asc(users.last_name), asc(users.first_name), asc(users.id))
    },

    /** Member `id` of the user's practice with the phone columns; 404 for any other id. */
    async memberWithPhone(user: AuthUser, id: number) {
      const [row] = await db
        .select({ ...staffColumns, ...ownPhoneColumns })
        .from(users)
        .where(eq(users.id, id))
        .limit(1)
      return ownRow(user, row, 'User')
    },

    /** The signed-in member's own row (see {@link ownProfileOf}). */
    ownProfile: (user: AuthUser, id: number) => ownProfileOf(db, user, id),

    /**
     * Saves the member's new phone once the code sent to it is verified, consuming the
     * verification in the same transaction; 400 for the same phone or an unverified one.
     */
    async changePhone(memberId: number, input: PhoneChangePayload, phone: string) {
      const [current] = await db.select(ownPhoneColumns).from(users).where(eq(users.id, memberId))
      if (current?.cell_phone === phone) throw badRequest(SELF_SERVICE_MESSAGES.phoneUnchanged)
      return db.transaction(async (tx) => {
        // The client's word is not enough: the code sent to this very phone must be verified.
        try {
          await consumeVerification(tx, { authyId: input.authyId, phone }, now())
        } catch (error) {
          if (error instanceof VerificationError) {
            throw badRequest(SELF_SERVICE_MESSAGES.phoneNotVerified)
          }
          throw error
        }
        const [row] = await tx
          .update(users)
          .set({ cell_phone: phone, country_code: input.country_code })
          .where(eq(users.id, memberId))
          .returning({ ...staffColumns, ...ownPhoneColumns })
        return row
      })
    },

    /**
     * My Profile: the member's own names; nobody edits a colleague's. Answers the member and the
     * names of the fields that changed (none: nothing written).
     */
    async updateProfile(user: AuthUser, id: number, input: ProfileUpdatePayload) {
      const [row] = await db.select(staffColumns).from(users).where(eq(users.id, id)).limit(1)
      const member = ownRow(user, row, 'User')
      if (member.id !== user.id) throw forbidden(SELF_SERVICE_MESSAGES.ownProfileOnly)
      const title = input.title.trim() === '' ? null : input.title.trim()
      const changed = [
        ...(title !== member.title ? ['title'] : []),
        ...(input.first_name !== member.first_name ? ['first_name'] : []),
        ...(input.last_name !== member.last_name ? ['last_name'] : []),
      ]
      if (changed.length === 0) return { row: member, changed }
      const [updated] = await db
        .update(users)
        .set({ title, first_name: input.first_name, last_name: input.last_name })
        .where(eq(users.id, id))
        .returning(staffColumns)
      return { row: updated, changed }
    },

    /** Gives member `id` a role, keeping one active Admin; `from` is the role it had. */
    changeRole(user: AuthUser, id: number, access_rights: RoleChangePayload['access_rights']) {
      return db.transaction(async (tx) => {
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
    },

    /** Deactivates member `id` (never the caller), keeping one active Admin; ends its sessions. */
    deactivate(user: AuthUser, id: number) {
      return db.transaction(async (tx) => {
        const { member, admins } = await lockMemberAndAdmins(tx, user, id)
        if (member.id === user.id) throw conflict(SELF_SERVICE_MESSAGES.ownAccount)
        if (member.deactivated_at) return { row: member, changed: false }
        if (member.access_rights === 'Admin') keepOneAdmin(admins, id)
        const at = now()
        // Both: the session check refuses a deactivated member, and the tokens made before now
        // stay dead after a reactivation.
        const [updated] = await tx
          .update(users)
          .set({ deactivated_at: at, tokens_valid_after: at })
          .where(and(eq(users.id, id), ne(users.id, user.id)))
          .returning(staffColumns)
        if (!updated) throw new Error('member disappeared')
        return { row: updated, changed: true }
      })
    },

    /** Reactivates member `id`. */
    reactivate(user: AuthUser, id: number) {
      return db.transaction(async (tx) => {
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
    },
  }
}
