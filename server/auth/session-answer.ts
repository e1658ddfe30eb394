import { eq } from 'drizzle-orm'
import { toRole } from '#domain/permissions.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import type { Session, SessionUser } from '#domain/session.ts'
import { signSession } from '#server/auth/jwt.ts'
import type { ServerContext } from '#server/context.ts'
import { practices, users } from '#server/db/schema.ts'
import { forbidden } from '#server/http/errors.ts'

/** The user's columns a session names: sign-in, sign-up and a personnel registration read these. */
export const SESSION_USER_COLUMNS = {
  id: users.id,
  email: users.email,
  username: users.username,
  title: users.title,
  first_name: users.first_name,
  last_name: users.last_name,
  image_path: users.image_path,
  position: users.position,
  access_rights: users.access_rights,
  practice_id: users.practice_id,
}

/** A user read with {@link SESSION_USER_COLUMNS}. */
export type SessionUserRow = {
  id: number
  email: string
  username: string | null
  title: string | null
  first_name: string
  last_name: string
  image_path: string | null
  position: string | null
  access_rights: string
  practice_id: number
}

/** A user as the API answers it (domain/session.ts), never with the password hash. */
export function toSessionUser(row: SessionUserRow): SessionUser {
  return {
    id: row.id,
    email: row.email,
    ...(row.username ? { username: row.username } : {}),
    title: row.title,
    first_name: row.first_name,
    last_name: row.last_name,
    image_path: row.image_path,
    position: row.position,
    access_rights: toRole(row.access_rights),
    practice_id: row.practice_id,
  }
}

const sessionColumns = {
  ...SESSION_USER_COLUMNS,
  practice_name: practices.practice_name,
  practice_image_path: practices.image_path,
  footer_about_url: practices.footer_about_url,
  footer_privacy_url: practices.footer_privacy_url,
  practice_email: practices.practice_email,
  footer_support: practices.footer_support,
}

/**
 * The answer that signs someone in: a fresh token and who is signed in, never the hash. Sign-in,
 * a password reset, a password change and a finished sign-up all answer it, and the
 * app stores it the same way (`currentUser`).
 */
export async function sessionAnswer(
  ctx: Pick<ServerContext, 'db' | 'config' | 'now'>,
  userId: number,
  remember: boolean,
): Promise<Session> {
  const [row] = await ctx.db
    .select({ ...sessionColumns, deactivated_at: users.deactivated_at })
    .from(users)
    .innerJoin(practices, eq(practices.id, users.practice_id))
    .where(eq(users.id, userId))
    .limit(1)
  if (!row) throw new Error('signed-in user disappeared')
  // A reset link of a deactivated member changes the password but opens no session.
  if (row.deactivated_at) throw forbidden(SELF_SERVICE_MESSAGES.deactivated)
  const jwt = await signSession(
    { userId: row.id, practiceId: row.practice_id },
    { secret: ctx.config.jwtSecret, remember, now: ctx.now() },
  )
  return {
    jwt,
    user: toSessionUser(row),
    practice: {
      id: row.practice_id,
      practice_name: row.practice_name,
      image_path: row.practice_image_path,
      email: row.practice_email ?? '',
      footer_links: {
        about: row.footer_about_url ?? '',
        privacy: row.footer_privacy_url ?? '',
        support: row.footer_support ?? '',
      },
    },
  }
}
