/**
 * A manager's approval of a visit's prices and points: a short-lived token (HS256,
 * the server's signing secret, its own issuer and audience so that no session token passes for
 * one) over the practice, the patient and the visit's lines, naming who approved and why. A
 * visit with other lines, another patient or after 15 minutes does not match it; the visit keeps
 * its id (`jti`), so one approval records one visit.
 */
import { createHash } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'
import { APPROVAL_TTL_MS, type VisitItemInput } from '#domain/visits.ts'
import { randomToken } from '#server/lib/random.ts'

const ISSUER = 'glow-rewards'
const AUDIENCE = 'visit-approval'
const encoder = new TextEncoder()

/** The lines as the approval binds them: each item, its quantity and the price typed (if any). */
export function linesDigest(items: readonly VisitItemInput[]): string {
  const canonical = items.map((item) =>
    [
      item.procedure_id !== undefined
        ? `procedure:${item.procedure_id}`
        : `product:${item.product_id}`,
      item.quantity,
      item.price_cents ?? 'catalogue',
    ].join('|'),
  )
  return createHash('sha256').update(canonical.join('\n')).digest('base64url')
}

export type ApprovalClaims = {
  id: string
  practiceId: number
  patientId: number
  digest: string
  approverId: number
  reason: string
  expiresAt: Date
}

/** Signs an approval for these lines of this patient, valid {@link APPROVAL_TTL_MS}. */
export async function signApproval(
  claims: Omit<ApprovalClaims, 'id' | 'expiresAt'>,
  { secret, now }: { secret: string; now: Date },
): Promise<{ token: string; id: string; expiresAt: Date }> {
  const id = randomToken(16)
  const expiresAt = new Date(now.getTime() + APPROVAL_TTL_MS)
  const token = await new SignJWT({
    pid: claims.practiceId,
    pat: claims.patientId,
    lines: claims.digest,
    rsn: claims.reason,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(String(claims.approverId))
    .setJti(id)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(encoder.encode(secret))
  return { token, id, expiresAt }
}

/** The approval's claims, or null when the token is not a valid, unexpired approval. */
export async function readApproval(
  token: string,
  { secret, now }: { secret: string; now: Date },
): Promise<ApprovalClaims | null> {
  try {
    const { payload } = await jwtVerify(token, encoder.encode(secret), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      requiredClaims: ['sub', 'jti', 'exp'],
    })
    const approverId = Number(payload.sub)
    if (
      !Number.isInteger(approverId) ||
      typeof payload.pid !== 'number' ||
      typeof payload.pat !== 'number' ||
      typeof payload.lines !== 'string' ||
      typeof payload.rsn !== 'string' ||
      typeof payload.jti !== 'string'
    ) {
      return null
    }
    return {
      id: payload.jti,
      practiceId: payload.pid,
      patientId: payload.pat,
      digest: payload.lines,
      approverId,
      reason: payload.rsn,
      expiresAt: new Date((payload.exp ?? 0) * 1000),
    }
  } catch {
    return null
  }
}
