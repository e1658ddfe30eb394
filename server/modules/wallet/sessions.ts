/**
 * Patient sessions of the wallet: an opaque random bearer token (`gwp_` and 256 random bits),
 * stored only as its SHA-256 in `patient_sessions`, that opens `/api/wallet/me…` for one patient
 * of one practice and nothing else. It is not a JWT: the staff middleware (server/auth/jwt.ts)
 * cannot read it, and the wallet's middleware (routes.ts) refuses a staff token. Sliding: each
 * call moves the end to 30 minutes later, never past 12 hours after sign-in. Archiving a patient
 * (or merging it away) ends its sessions in the database (migration 0046's trigger).
 */
import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { verifySession } from '#server/auth/jwt.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { patientSessions, patients } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { SESSION_IDLE_MS, SESSION_MAX_MS, SESSION_RENEW_AFTER_MS } from './limits.ts'

/** Every patient token starts so: a token of the other kind is told apart at a glance. */
export const PATIENT_TOKEN_PREFIX = 'gwp_'

const TOKEN_SHAPE = /^gwp_[A-Za-z0-9_-]{43}$/

/** The session a patient's call carries, as the wallet's routes read it. */
export type PatientSession = {
  id: number
  practiceId: number
  patientId: number
  createdAt: Date
  expiresAt: Date
}

/** Hono's environment of the wallet's routes: the patient session its middleware sets. */
export type WalletEnv = { Variables: AppEnv['Variables'] & { patient: PatientSession } }

export function hashPatientToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** When a session last renewed at `seen` and made at `created` ends. */
export function sessionEnd(created: Date, seen: Date): Date {
  return new Date(Math.min(seen.getTime() + SESSION_IDLE_MS, created.getTime() + SESSION_MAX_MS))
}

/** Opens a session for a patient in `tx`; answers its token (shown once) and its end. */
export async function openPatientSession(
  tx: Transaction | Database,
  input: { practiceId: number; patientId: number },
  at: Date,
): Promise<{ token: string; id: number; expiresAt: Date }> {
  const token = `${PATIENT_TOKEN_PREFIX}${randomToken(32)}`
  const expiresAt = sessionEnd(at, at)
  const [row] = await tx
    .insert(patientSessions)
    .values({
      practice_id: input.practiceId,
      patient_id: input.patientId,
      token_hash: hashPatientToken(token),
      created_at: at,
      last_seen_at: at,
      expires_at: expiresAt,
    })
    .returning({ id: patientSessions.id })
  if (!row) throw new Error('The session was not stored')
  return { token, id: row.id, expiresAt }
}

/** What a bearer token is: an open patient session, a staff session (a JWT), or neither. */
export type TokenKind =
  | { kind: 'patient'; session: PatientSession }
  | { kind: 'staff' }
  | { kind: 'none' }

/**
 * Reads a bearer token: an open session (not revoked, not expired, its patient not archived),
 * renewing its idle end (sliding) at most once a minute, never past 12 hours after sign-in; a
 * staff session (a valid JWT of this server); or nothing.
 */
export async function readPatientToken(
  ctx: Pick<ServerContext, 'db' | 'config'>,
  token: string,
  at: Date,
): Promise<TokenKind> {
  if (!TOKEN_SHAPE.test(token)) {
    const staff = await verifySession(token, ctx.config.jwtSecret, at).then(
      () => true,
      () => false,
    )
    return staff ? { kind: 'staff' } : { kind: 'none' }
  }
  const [row] = await ctx.db
    .select({ session: patientSessions, archived_at: patients.archived_at })
    .from(patientSessions)
    .innerJoin(patients, eq(patients.id, patientSessions.patient_id))
    .where(eq(patientSessions.token_hash, hashPatientToken(token)))
    .limit(1)
  const session = row?.session
  if (
    !row ||
    !session ||
    session.revoked_at ||
    session.expires_at.getTime() <= at.getTime() ||
    row.archived_at
  ) {
    return { kind: 'none' }
  }
  let expiresAt = session.expires_at
  if (at.getTime() - session.last_seen_at.getTime() >= SESSION_RENEW_AFTER_MS) {
    expiresAt = sessionEnd(session.created_at, at)
    await ctx.db
      .update(patientSessions)
      .set({ last_seen_at: at, expires_at: expiresAt })
      .where(eq(patientSessions.id, session.id))
  }
  return {
    kind: 'patient',
    session: {
      id: session.id,
      practiceId: session.practice_id,
      patientId: session.patient_id,
      createdAt: session.created_at,
      expiresAt,
    },
  }
}
