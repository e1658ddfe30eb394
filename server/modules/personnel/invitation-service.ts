import { and, eq } from 'drizzle-orm'
import {
  INVITATION_ID_MAX_LENGTH,
  INVITATION_TTL_DAYS,
  type InvitationClosedDetails,
  InvitationClosedError,
  type InvitePersonnelInput,
  invitationStatus,
  PERSONNEL_MESSAGES,
  type PersonnelInvitation,
  type PersonnelRegisterPayload,
} from '#domain/personnel.ts'
import type { InvitationPreview } from '#domain/practice-data.ts'
import type { SessionUser } from '#domain/session.ts'
import { DAY_MS } from '#domain/time.ts'
import { recordWithin } from '#server/audit/audit.ts'
import { type Actor, actorEvent, type Caller } from '#server/auth/caller.ts'
import { SESSION_USER_COLUMNS, toSessionUser } from '#server/auth/session-answer.ts'
import type { ServerContext } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { personnelInvitations, practices, users } from '#server/db/schema.ts'
import { conflict, gone, invalid, notFound } from '#server/lib/domain-error.ts'
import { maskEmail } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { templateMail } from '#server/messaging/outbound.ts'
import {
  consumeVerification,
  phoneDigits,
  VerificationError,
} from '#server/messaging/verification.ts'
import { hashPassword } from '#server/security/passwords.ts'
import { invitationEmail } from './invitation-email.ts'
import {
  emailHasAccount,
  hasPendingInvitation,
  type InvitationRow,
  invitationById,
  invitationWithPractice,
  practiceInvitations,
} from './queries.ts'

/** Invitation ids are base64url; anything else cannot be one and is not found at once. */
const INVITATION_ID = new RegExp(`^[\\w-]{1,${INVITATION_ID_MAX_LENGTH}}$`)

/** An invitation as the API answers it; the id (the link's secret) only for an Admin. */
function toInvitation(row: InvitationRow, now: Date, withId: boolean): PersonnelInvitation {
  return {
    ...(withId ? { id: row.id } : {}),
    email: row.email,
    title: row.title,
    first_name: row.first_name,
    last_name: row.last_name,
    position: row.position,
    status: statusOf(row, now),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  }
}

/** Pending, used, revoked or expired at `now`. */
function statusOf(row: InvitationRow, now: Date) {
  const stored = row.status === 'used' || row.status === 'revoked' ? row.status : 'pending'
  return invitationStatus(stored, row.expires_at, now)
}

const invitationGone = () => notFound(PERSONNEL_MESSAGES.invitationNotFound)
const unknownInvitation = () => notFound('Invitation not found.')

/** When an invitation made or renewed at `now` expires. */
const expiryFrom = (now: Date) => new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS)

/** The registration link of an invitation: `{PUBLIC_URL}/signup/personnel/{id}`. */
export function invitationLink(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/signup/personnel/${id}`
}

type InvitationContext = Pick<ServerContext, 'db' | 'now' | 'outbound' | 'config' | 'hashing'>

/**
 * The invitations' use cases: invite, resend, revoke, preview and register, each change audited
 * in its transaction where it records one.
 */
export function invitationService(ctx: InvitationContext) {
  const { db } = ctx

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

  /** The invitation `id` of the caller's own practice: not found when unknown or another's. */
  async function ownInvitation(user: Caller, id: string): Promise<InvitationRow> {
    if (!INVITATION_ID.test(id)) throw unknownInvitation()
    const row = await invitationById(db, id)
    // Another practice's invitation answers as an unknown one: ids cannot be counted.
    if (!row || row.practice_id !== user.practice_id) throw unknownInvitation()
    return row
  }

  /** Sets a pending invitation's status or expiry; a conflict when it was used meanwhile. */
  async function changePending(
    tx: Transaction,
    id: string,
    change: Partial<Pick<InvitationRow, 'status' | 'expires_at'>>,
  ): Promise<InvitationRow> {
    const [updated] = await tx
      .update(personnelInvitations)
      .set(change)
      .where(and(eq(personnelInvitations.id, id), eq(personnelInvitations.status, 'pending')))
      .returning()
    if (!updated) throw conflict(PERSONNEL_MESSAGES.invitationUsed)
    return updated
  }

  return {
    /** The practice's invitations, newest first; the ids only for an Admin. */
    async list(user: Caller): Promise<PersonnelInvitation[]> {
      const rows = await practiceInvitations(db, user.practice_id)
      const now = ctx.now()
      return rows.map((row) => toInvitation(row, now, user.access_rights === 'Admin'))
    },

    /**
     * Invites `input.email` to the actor's practice: the invitation, its e-mail and its audit
     * event in one transaction. A conflict when the e-mail has an account or a pending invitation.
     */
    async invite(actor: Actor, input: InvitePersonnelInput): Promise<PersonnelInvitation> {
      const { user } = actor
      const email = input.email.trim().toLowerCase()
      const now = ctx.now()
      if (await emailHasAccount(db, email)) throw conflict(PERSONNEL_MESSAGES.emailHasAccount)
      if (await hasPendingInvitation(db, user.practice_id, email, now)) {
        throw conflict(PERSONNEL_MESSAGES.alreadyInvited)
      }
      const row = await db.transaction(async (tx) => {
        const [created] = await tx
          .insert(personnelInvitations)
          .values({
            // 256 random bits: the link is the only proof that a person was invited.
            id: randomToken(32),
            practice_id: user.practice_id,
            invited_by: user.id,
            email,
            title: input.title?.trim() || null,
            first_name: input.first_name.trim(),
            last_name: input.last_name.trim(),
            position: input.position,
            status: 'pending',
            expires_at: expiryFrom(now),
            created_at: now,
          })
          .returning()
        if (!created) throw new Error('invitation row was not created')
        // The e-mail is queued with the invitation: both exist, or neither does.
        await queueInvitation(tx, created, user.id)
        const details = { invited_email: maskEmail(email), position: created.position }
        await recordWithin(tx, actorEvent(actor, 'invitation.created', details), now)
        return created
      })
      ctx.outbound.kick()
      return toInvitation(row, now, true)
    },

    /** The invitation `id` of the caller's practice that may be sent again; a conflict when closed. */
    async resendable(user: Caller, id: string): Promise<InvitationRow> {
      const row = await ownInvitation(user, id)
      if (row.status === 'used') throw conflict(PERSONNEL_MESSAGES.invitationUsed)
      if (row.status === 'revoked') throw conflict('This invitation was revoked.')
      return row
    },

    /** E-mails the link of `row` again and restarts its days. */
    async resend(user: Caller, row: InvitationRow): Promise<PersonnelInvitation> {
      const now = ctx.now()
      const renewed = await db.transaction(async (tx) => {
        const updated = await changePending(tx, row.id, { expires_at: expiryFrom(now) })
        await queueInvitation(tx, updated, user.id)
        return updated
      })
      ctx.outbound.kick()
      return toInvitation(renewed, now, true)
    },

    /** Revokes the pending invitation `id`; revoking twice is harmless, a used one a conflict. */
    async revoke(user: Caller, id: string): Promise<PersonnelInvitation> {
      const row = await ownInvitation(user, id)
      const now = ctx.now()
      if (row.status === 'used') throw conflict(PERSONNEL_MESSAGES.invitationUsed)
      if (row.status === 'revoked') return toInvitation(row, now, true)
      const updated = await db.transaction((tx) => changePending(tx, row.id, { status: 'revoked' }))
      return toInvitation(updated, now, true)
    },

    /**
     * What the registration form pre-fills; gone (with the reason and the practice's name) for a
     * used or expired invitation, not found for an unknown or revoked one.
     */
    async preview(id: string): Promise<InvitationPreview> {
      if (!INVITATION_ID.test(id)) throw invitationGone()
      const found = await invitationWithPractice(db, id)
      if (!found) throw invitationGone()
      const { row, practice_name } = found
      const status = statusOf(row, ctx.now())
      // The link is a 256-bit secret: saying that its invitation was used or has expired (and
      // whose it is) tells nothing to someone who does not already hold it.
      if (status === 'used' || status === 'expired') {
        const details: InvitationClosedDetails = { reason: status, practice_name }
        throw gone(new InvitationClosedError(details).message, details)
      }
      if (status !== 'pending') throw invitationGone()
      return {
        first_name: row.first_name,
        last_name: row.last_name,
        email: row.email,
        position: row.position,
        title: row.title,
        practice_name,
      }
    },

    /**
     * Creates the invited person's account (Staff) in the inviting practice: the user, the used
     * invitation, the consumed verification and the audit event in one transaction.
     */
    async register(body: PersonnelRegisterPayload, ip: string): Promise<SessionUser> {
      if (!INVITATION_ID.test(body.id)) throw invitationGone()
      const invitation = await invitationById(db, body.id)
      if (!invitation || statusOf(invitation, ctx.now()) !== 'pending') throw invitationGone()
      if (await emailHasAccount(db, invitation.email)) {
        throw conflict(PERSONNEL_MESSAGES.emailHasAccount)
      }
      const passwordHash = await ctx.hashing.run(() => hashPassword(body.password))
      const user = await db.transaction(async (tx) => {
        const at = ctx.now()
        // The row lock makes two registrations with one link wait for each other; the second
        // then finds the invitation used.
        const [locked] = await tx
          .select()
          .from(personnelInvitations)
          .where(eq(personnelInvitations.id, invitation.id))
          .for('update')
        if (!locked || statusOf(locked, at) !== 'pending') throw invitationGone()
        try {
          await consumeVerification(tx, { authyId: body.authyId, phone: body.cell_phone }, at)
        } catch (error) {
          if (error instanceof VerificationError) throw invalid(error.message)
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
          .returning(SESSION_USER_COLUMNS)
        if (!created) throw conflict(PERSONNEL_MESSAGES.emailHasAccount)
        await tx
          .update(personnelInvitations)
          .set({ status: 'used', used_at: at })
          .where(eq(personnelInvitations.id, locked.id))
        await recordWithin(
          tx,
          { action: 'invitation.used', userId: created.id, practiceId: created.practice_id, ip },
          at,
        )
        return created
      })
      return toSessionUser(user)
    },
  }
}
