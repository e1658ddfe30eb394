import { and, asc, desc, eq, gt } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { personnelInvitations, practices, users } from '#server/db/schema.ts'

export type InvitationRow = typeof personnelInvitations.$inferSelect

/** The practice's invitations, newest first. */
export function practiceInvitations(db: Database, practiceId: number) {
  return db
    .select()
    .from(personnelInvitations)
    .where(eq(personnelInvitations.practice_id, practiceId))
    .orderBy(desc(personnelInvitations.created_at), asc(personnelInvitations.email))
}

/** The invitation `id`, of any practice, or undefined. */
export async function invitationById(db: Database, id: string) {
  const [row] = await db
    .select()
    .from(personnelInvitations)
    .where(eq(personnelInvitations.id, id))
    .limit(1)
  return row
}

/** The invitation `id` with the name of the practice it joins, or undefined. */
export async function invitationWithPractice(db: Database, id: string) {
  const [found] = await db
    .select({ row: personnelInvitations, practice_name: practices.practice_name })
    .from(personnelInvitations)
    .innerJoin(practices, eq(practices.id, personnelInvitations.practice_id))
    .where(eq(personnelInvitations.id, id))
    .limit(1)
  return found
}

/** Whether `email` (lower case) has an account, in any practice. */
export async function emailHasAccount(db: Database, email: string): Promise<boolean> {
  const [account] = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, email))
    .limit(1)
  return account !== undefined
}

/** Whether the practice has a pending invitation for `email` that has not expired at `now`. */
export async function hasPendingInvitation(
  db: Database,
  practiceId: number,
  email: string,
  now: Date,
): Promise<boolean> {
  const [pending] = await db
    .select({ id: personnelInvitations.id })
    .from(personnelInvitations)
    .where(
      and(
        eq(personnelInvitations.practice_id, practiceId),
        eq(personnelInvitations.email, email),
        eq(personnelInvitations.status, 'pending'),
        gt(personnelInvitations.expires_at, now),
      ),
    )
    .limit(1)
  return pending !== undefined
}
