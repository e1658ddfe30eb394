import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { resetCodes, users } from '#server/db/schema.ts'

/** The account a sign-in names, with what the sign-in checks; undefined for an unknown e-mail. */
export async function signInAccount(db: Database, email: string) {
  const [user] = await db
    .select({
      id: users.id,
      password_hash: users.password_hash,
      first_name: users.first_name,
      practice_id: users.practice_id,
      access_rights: users.access_rights,
      deactivated_at: users.deactivated_at,
    })
    .from(users)
    .where(eq(users.email, email))
    .limit(1)
  return user
}

/** Who a reset e-mail greets; undefined for an unknown e-mail. */
export async function resetAccount(db: Database, email: string) {
  const [user] = await db
    .select({ id: users.id, first_name: users.first_name, practice_id: users.practice_id })
    .from(users)
    .where(eq(users.email, email))
    .limit(1)
  return user
}

/** The stored password hash of user `id`, or undefined. */
export async function passwordHashOf(db: Database, id: number): Promise<string | undefined> {
  const [row] = await db
    .select({ password_hash: users.password_hash })
    .from(users)
    .where(eq(users.id, id))
    .limit(1)
  return row?.password_hash
}

/** The condition of a reset code that can still set a password at `now`. */
export function liveResetCode(codeHash: string, now: Date) {
  return and(
    eq(resetCodes.code_hash, codeHash),
    isNull(resetCodes.used_at),
    gt(resetCodes.expires_at, now),
  )
}

/** Whether the reset code with this hash is unused and unexpired at `now`. */
export async function resetCodeIsLive(db: Database, codeHash: string, now: Date) {
  const [row] = await db
    .select({ user_id: resetCodes.user_id })
    .from(resetCodes)
    .where(liveResetCode(codeHash, now))
    .limit(1)
  return row !== undefined
}

/** Whether the practice has a user with the Admin role. */
export async function practiceHasAdmin(db: Database, practiceId: number): Promise<boolean> {
  const [admin] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.practice_id, practiceId), eq(users.access_rights, 'Admin')))
    .limit(1)
  return admin !== undefined
}
