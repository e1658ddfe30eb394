import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import { createMiddleware } from 'hono/factory'
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { toRole } from '#domain/permissions.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { users } from '#server/db/schema.ts'
import { unauthorized } from '#server/http/errors.ts'
import { randomToken } from '#server/lib/random.ts'

/** A session lasts 8 hours, or 30 days with Remember me. */
export const SESSION_TTL_SECONDS = 8 * 60 * 60
export const REMEMBER_TTL_SECONDS = 30 * 24 * 60 * 60

const ISSUER = 'glow-rewards'
const encoder = new TextEncoder()

/** What a session token says. */
export type SessionClaims = {
  userId: number
  practiceId: number
  /** When the token was made, to the millisecond (the `iat_ms` claim; `iat` has whole seconds). */
  issuedAt: Date
  expiresAt: Date
}

/** Signs a session token (HS256) for a user of a practice. */
export async function signSession(
  { userId, practiceId }: { userId: number; practiceId: number },
  {
    secret,
    remember = false,
    now = new Date(),
  }: { secret: string; remember?: boolean; now?: Date },
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000)
  const ttl = remember ? REMEMBER_TTL_SECONDS : SESSION_TTL_SECONDS
  // `iat_ms` lets a sign-out in one second end the tokens made before it but not the one made
  // right after it: `iat` alone cannot tell them apart.
  return new SignJWT({ pid: practiceId, iat_ms: now.getTime() })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(String(userId))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttl)
    .sign(encoder.encode(secret))
}

/**
 * Verifies a session token: signature, algorithm, issuer, expiry (against `now`) and claim
 * shapes. Throws when anything is wrong.
 */
export async function verifySession(
  token: string,
  secret: string,
  now: Date = new Date(),
): Promise<SessionClaims> {
  const { payload } = await jwtVerify(token, encoder.encode(secret), {
    algorithms: ['HS256'],
    issuer: ISSUER,
    currentDate: now,
    requiredClaims: ['sub', 'iat', 'exp'],
  })
  const userId = Number(payload.sub)
  const practiceId = payload.pid
  const iat = payload.iat ?? 0
  // A millisecond issue time within the same second as `iat`; tokens without it count from `iat`.
  const iatMs =
    typeof payload.iat_ms === 'number' &&
    Number.isInteger(payload.iat_ms) &&
    Math.floor(payload.iat_ms / 1000) === iat
      ? payload.iat_ms
      : iat * 1000
  if (!Number.isInteger(userId) || userId < 1 || typeof practiceId !== 'number') {
    throw new joseErrors.JWTClaimValidationFailed('malformed session claims', payload)
  }
  return {
    userId,
    practiceId,
    issuedAt: new Date(iatMs),
    expiresAt: new Date((payload.exp ?? 0) * 1000),
  }
}

/**
 * The signing secret: `JWT_SECRET` when given; otherwise one generated once and kept in
 * `<dataDir>/jwt-secret` so sessions survive a restart; in memory mode, a new one per process.
 */
export function resolveJwtSecret({
  jwtSecret,
  dataDir,
}: {
  jwtSecret?: string | undefined
  dataDir: string
}): string {
  if (jwtSecret) return jwtSecret
  if (dataDir === 'memory') return randomToken(48)
  const file = join(dataDir, 'jwt-secret')
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim()
    if (stored.length >= 32) return stored
  }
  mkdirSync(dataDir, { recursive: true })
  const secret = randomToken(48)
  writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return secret
}

const SESSION_ENDED = 'Your session has ended. Please sign in again.'

/**
 * Hono middleware for protected routes: reads `Authorization: Bearer <jwt>`, verifies it, loads
 * the user, and refuses with 401 JSON a missing, malformed, expired or tampered token, a token
 * of a user that no longer exists or is deactivated, and a token issued before the user's `tokens_valid_after`.
 * On success `c.var.user` is `{ id, practice_id, access_rights, email }`.
 */
export function requireAuth(ctx: Pick<ServerContext, 'db' | 'config' | 'now'>) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('Authorization') ?? ''
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim())
    if (!match?.[1]) throw unauthorized()
    let claims: SessionClaims
    try {
      claims = await verifySession(match[1], ctx.config.jwtSecret, ctx.now())
    } catch {
      throw unauthorized(SESSION_ENDED)
    }
    const [user] = await ctx.db
      .select({
        id: users.id,
        practice_id: users.practice_id,
        access_rights: users.access_rights,
        email: users.email,
        tokens_valid_after: users.tokens_valid_after,
        deactivated_at: users.deactivated_at,
      })
      .from(users)
      // The token's practice in the filter too: a lookup a database distributed by practice
      // routes to one node (docs/decisions/017-scaling-out.md).
      .where(and(eq(users.practice_id, claims.practiceId), eq(users.id, claims.userId)))
      .limit(1)
    if (!user || user.practice_id !== claims.practiceId) throw unauthorized(SESSION_ENDED)
    // A deactivated member's sessions end at once, whatever their tokens say.
    if (user.deactivated_at) throw unauthorized(SESSION_ENDED)
    // Milliseconds on both sides: a token made after a sign-out or reset, even in the same second,
    // stays valid; every token made before it is refused. The reset's own new session is made at
    // the very instant it stores, hence `<` rather than `<=`.
    if (user.tokens_valid_after && claims.issuedAt.getTime() < user.tokens_valid_after.getTime()) {
      throw unauthorized(SESSION_ENDED)
    }
    c.set('user', {
      id: user.id,
      practice_id: user.practice_id,
      access_rights: toRole(user.access_rights),
      email: user.email,
    })
    await next()
  })
}
