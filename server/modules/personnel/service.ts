import { and, asc, eq, isNull, ne, or, type SQL } from 'drizzle-orm'
import {
  type PhoneChangePayload,
  type ProfileUpdatePayload,
  type RoleChangePayload,
  SELF_SERVICE_MESSAGES,
} from '#domain/self-service.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent, type Caller, ownRow } from '#server/auth/caller.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { lockUsers } from '#server/db/locks.ts'
import { users } from '#server/db/schema.ts'
import { conflict, invalid, notAllowed } from '#server/lib/domain-error.ts'
import {
  consumeVerification,
  phoneDigits,
  VerificationError,
} from '#server/messaging/verification.ts'

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
async function lockMember(tx: Transaction, user: Caller, id: number) {
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
async function lockMemberAndAdmins(tx: Transaction, user: Caller, id: number) {
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
async function ownProfileOf(db: Database, user: Caller, id: number) {
  const [row] = await db.select(staffColumns).from(users).where(eq(users.id, id)).limit(1)
  const member = ownRow(user, row, 'User')
  if (member.id !== user.id) throw notAllowed(SELF_SERVICE_MESSAGES.ownProfileOnly)
  return member
}

/**
 * The staff's use cases, on one database: who reads which member, and each change with the locks
 * and the rules it needs, audited in the transaction of the change. The routes parse and answer.
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
    async memberWithPhone(user: Caller, id: number) {
      const [row] = await db
        .select({ ...staffColumns, ...ownPhoneColumns })
        .from(users)
        .where(eq(users.id, id))
        .limit(1)
      return ownRow(user, row, 'User')
    },

    /** The signed-in member's own row (see {@link ownProfileOf}). */
    ownProfile: (user: Caller, id: number) => ownProfileOf(db, user, id),

    /**
     * Saves the signed-in member's new phone (member `id`: only the own) once the code sent to it
     * is verified, consuming the verification in the same transaction; invalid for the same
     * phone or an unverified one.
     */
    async changePhone(actor: Actor, id: number, input: PhoneChangePayload) {
      const member = await ownProfileOf(db, actor.user, id)
      const phone = phoneDigits(input.cell_phone)
      const [current] = await db.select(ownPhoneColumns).from(users).where(eq(users.id, member.id))
      if (current?.cell_phone === phone) throw invalid(SELF_SERVICE_MESSAGES.phoneUnchanged)
      return db.transaction(async (tx) => {
        const at = now()
        // The client's word is not enough: the code sent to this very phone must be verified.
        try {
          await consumeVerification(tx, { authyId: input.authyId, phone }, at)
        } catch (error) {
          if (error instanceof VerificationError) {
            throw invalid(SELF_SERVICE_MESSAGES.phoneNotVerified)
          }
          throw error
        }
        const [row] = await tx
          .update(users)
          .set({ cell_phone: phone, country_code: input.country_code })
          .where(eq(users.id, member.id))
          .returning({ ...staffColumns, ...ownPhoneColumns })
        await recordWithin(tx, actorEvent(actor, 'user.phone_changed', { member: member.id }), at)
        return row
      })
    },

    /**
     * My Profile: the member's own names; nobody edits a colleague's. Audited with the names of
     * the fields that changed, never their values; nothing changed, nothing written.
     */
    async updateProfile(actor: Actor, id: number, input: ProfileUpdatePayload) {
      const member = await ownProfileOf(db, actor.user, id)
      const title = input.title.trim() === '' ? null : input.title.trim()
      const changed = [
        ...(title !== member.title ? ['title'] : []),
        ...(input.first_name !== member.first_name ? ['first_name'] : []),
        ...(input.last_name !== member.last_name ? ['last_name'] : []),
      ]
      if (changed.length === 0) return member
      return db.transaction(async (tx) => {
        const [updated] = await tx
          .update(users)
          .set({ title, first_name: input.first_name, last_name: input.last_name })
          .where(eq(users.id, id))
          .returning(staffColumns)
        const event = actorEvent(actor, 'user.profile_updated', { fields: changed.join(',') })
        await recordWithin(tx, event, now())
        return updated
      })
    },

    /** Gives member `id` a role, keeping one active Admin; audited when the role changed. */
    changeRole(actor: Actor, id: number, access_rights: RoleChangePayload['access_rights']) {
      return db.transaction(async (tx) => {
        const { member, admins } = await lockMemberAndAdmins(tx, actor.user, id)
        if (member.access_rights === access_rights) return member
        if (member.access_rights === 'Admin' && !member.deactivated_at) keepOneAdmin(admins, id)
        const [updated] = await tx
          .update(users)
          .set({ access_rights })
          .where(eq(users.id, id))
          .returning(staffColumns)
        if (!updated) throw new Error('member disappeared')
        const details = { member: id, from: member.access_rights, to: access_rights }
        await recordWithin(tx, actorEvent(actor, 'user.role_changed', details), now())
        return updated
      })
    },

    /**
     * Deactivates member `id` (never the caller), keeping one active Admin; ends its sessions.
     * Audited when it was active.
     */
    deactivate(actor: Actor, id: number) {
      const user = actor.user
      return db.transaction(async (tx) => {
        const { member, admins } = await lockMemberAndAdmins(tx, user, id)
        if (member.id === user.id) throw conflict(SELF_SERVICE_MESSAGES.ownAccount)
        if (member.deactivated_at) return member
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
        await recordWithin(tx, actorEvent(actor, 'user.deactivated', { member: id }), at)
        return updated
      })
    },

    /** Reactivates member `id`; audited when it was deactivated. */
    reactivate(actor: Actor, id: number) {
      return db.transaction(async (tx) => {
        const member = await lockMember(tx, actor.user, id)
        if (!member.deactivated_at) return member
        const [updated] = await tx
          .update(users)
          .set({ deactivated_at: null })
          .where(eq(users.id, id))
          .returning(staffColumns)
        if (!updated) throw new Error('member disappeared')
        await recordWithin(tx, actorEvent(actor, 'user.reactivated', { member: id }), now())
        return updated
      })
    },
  }
}
