import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import { and, count, desc, eq, gt, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import type { Database, Transaction } from '#server/db/client.ts'
import { verificationCodes } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import type { OutboundQueue } from '#server/messaging/outbound.ts'

/**
 * Phone verification by SMS code: a 6-digit code,
 * valid 10 minutes, 5 attempts, 30 seconds between codes to one phone and at most 5 codes an hour.
 * The code is stored only as a SHA-256 hash; the verification id (`authyId`) is random (256 bits).
 * A verified phone registers one account: registration consumes it.
 */
export const VERIFICATION_RULES = {
  codeLength: 6,
  codeTtlMs: 10 * 60 * 1000,
  maxAttempts: 5,
  resendGapMs: 30 * 1000,
  maxCodesPerHour: 5,
  /** How long after verifying the phone the sign-up can still be submitted. */
  verifiedTtlMs: 24 * 60 * 60 * 1000,
} as const

/** Every answer the verification gives a person, in the wizard's voice. */
export const VERIFICATION_MESSAGES = {
  incorrect: 'Incorrect Confirmation Code entered',
  expired: 'The Confirmation Code has expired. Please get a new code.',
  tooManyAttempts: 'Too many incorrect codes were entered. Please get a new code.',
  unknown: 'This Confirmation Code is not valid for this phone number. Please get a new code.',
  tooManyCodes: 'Too many codes were sent to this phone number. Please try again in an hour.',
  notVerified: 'Please verify your phone number before signing up.',
  resendTooSoon: (seconds: number) =>
    `Please wait ${seconds} seconds before requesting another Confirmation Code.`,
} as const

/** A verification failure: the status and message the API answers with. */
export class VerificationError extends Error {
  override readonly name = 'VerificationError'
  readonly status: 400 | 429
  /** Seconds until the caller may try again (429 only). */
  readonly retryAfterSeconds: number | undefined

  constructor(status: 400 | 429, message: string, retryAfterSeconds?: number) {
    super(message)
    this.status = status
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** Phones are compared by their digits only (`+1 (555) 010-0101` is `15550100101`). */
export function phoneDigits(phone: string): string {
  return phone.replace(/\D/g, '')
}

/** The stored form of a code: SHA-256 over the verification id and the code. */
export function hashCode(authyId: string, code: string): string {
  return createHash('sha256').update(`${authyId}:${code}`).digest('hex')
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/** A fresh 6-digit code, leading zeros allowed, from the CSPRNG. */
export function newCode(): string {
  return String(randomInt(0, 10 ** VERIFICATION_RULES.codeLength)).padStart(
    VERIFICATION_RULES.codeLength,
    '0',
  )
}

/** What {@link issueCode} needs. */
export interface IssueCodeDeps {
  db: Database
  /** The SMS is queued in the transaction that stores the code, then the worker is kicked. */
  outbound: Pick<OutboundQueue, 'enqueue' | 'kick'>
  now: () => Date
  /** Injected by tests to know the code without reading the outbox. */
  generateCode?: () => string
}

/**
 * Starts a verification for a phone and sends its code by SMS. Throws {@link VerificationError}
 * 429 when the last code to this phone went out less than 30 s ago or 5 codes went out in the last
 * hour. Earlier unverified codes of the phone stop working: only the newest one counts. The SMS
 * is queued with the code (docs/decisions/006-durable-outbound-queue.md): both exist or neither.
 */
export async function issueCode(
  deps: IssueCodeDeps,
  input: { email: string; phone: string; countryCode: string },
): Promise<{ authyId: string }> {
  const phone = phoneDigits(input.phone)
  const at = deps.now()
  const code = (deps.generateCode ?? newCode)()
  const authyId = randomToken(32)

  await deps.db.transaction(async (tx) => {
    // One get-code per phone at a time, so two quick requests cannot both pass the limits.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`get-code:${phone}`}))`)
    const [latest] = await tx
      .select({ last_sent_at: verificationCodes.last_sent_at })
      .from(verificationCodes)
      .where(eq(verificationCodes.phone, phone))
      .orderBy(desc(verificationCodes.last_sent_at))
      .limit(1)
    if (latest) {
      const wait = latest.last_sent_at.getTime() + VERIFICATION_RULES.resendGapMs - at.getTime()
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000)
        throw new VerificationError(429, VERIFICATION_MESSAGES.resendTooSoon(seconds), seconds)
      }
    }
    const hourAgo = new Date(at.getTime() - 60 * 60 * 1000)
    const [sent] = await tx
      .select({ n: count() })
      .from(verificationCodes)
      .where(and(eq(verificationCodes.phone, phone), gt(verificationCodes.created_at, hourAgo)))
    if ((sent?.n ?? 0) >= VERIFICATION_RULES.maxCodesPerHour) {
      throw new VerificationError(429, VERIFICATION_MESSAGES.tooManyCodes, 60 * 60)
    }
    await tx
      .update(verificationCodes)
      .set({ expires_at: at })
      .where(
        and(
          eq(verificationCodes.phone, phone),
          isNull(verificationCodes.verified_at),
          gt(verificationCodes.expires_at, at),
        ),
      )
    await tx.insert(verificationCodes).values({
      id: authyId,
      phone,
      email: input.email.trim().toLowerCase(),
      code_hash: hashCode(authyId, code),
      expires_at: new Date(at.getTime() + VERIFICATION_RULES.codeTtlMs),
      attempts: 0,
      last_sent_at: at,
      created_at: at,
    })
    await deps.outbound.enqueue(tx, {
      channel: 'sms',
      to: `${input.countryCode}${phone}`,
      text: `Your Glow Rewards confirmation code is ${code}. It expires in 10 minutes.`,
      code,
    })
  })
  deps.outbound.kick()
  return { authyId }
}

/**
 * Checks a code. Every check spends one of the 5 attempts before the code is compared, so parallel
 * guesses cannot exceed the limit. Throws {@link VerificationError}: 400 for a wrong, expired or
 * unknown code, 429 once the attempts are spent. Checking an already verified code again with the
 * right code succeeds (a double click is harmless).
 */
export async function verifyCode(
  deps: { db: Database; now: () => Date },
  input: { authyId: string; phone: string; code: string },
): Promise<void> {
  const phone = phoneDigits(input.phone)
  const at = deps.now()
  const [row] = await deps.db
    .select()
    .from(verificationCodes)
    .where(eq(verificationCodes.id, input.authyId))
    .limit(1)
  if (!row || row.phone !== phone || row.used_at) {
    throw new VerificationError(400, VERIFICATION_MESSAGES.unknown)
  }
  if (row.verified_at) {
    if (sameHash(row.code_hash, hashCode(row.id, input.code.trim()))) return
    throw new VerificationError(400, VERIFICATION_MESSAGES.incorrect)
  }
  if (row.expires_at.getTime() <= at.getTime()) {
    throw new VerificationError(400, VERIFICATION_MESSAGES.expired)
  }
  const [spent] = await deps.db
    .update(verificationCodes)
    .set({ attempts: sql`${verificationCodes.attempts} + 1` })
    .where(
      and(
        eq(verificationCodes.id, row.id),
        isNull(verificationCodes.verified_at),
        lt(verificationCodes.attempts, VERIFICATION_RULES.maxAttempts),
      ),
    )
    .returning({ attempts: verificationCodes.attempts })
  if (!spent) throw new VerificationError(429, VERIFICATION_MESSAGES.tooManyAttempts)
  if (!sameHash(row.code_hash, hashCode(row.id, input.code.trim()))) {
    throw new VerificationError(400, VERIFICATION_MESSAGES.incorrect)
  }
  await deps.db
    .update(verificationCodes)
    .set({ verified_at: at })
    .where(eq(verificationCodes.id, row.id))
}

/**
 * Consumes a verified phone for one registration, inside the registration's transaction: it
 * succeeds once per verification, and only when the phone matches, the code was verified within
 * the last 24 hours and no registration used it before. Throws {@link VerificationError} 400.
 */
export async function consumeVerification(
  tx: Transaction | Database,
  input: { authyId: string; phone: string },
  now: Date,
): Promise<void> {
  const [used] = await tx
    .update(verificationCodes)
    .set({ used_at: now })
    .where(
      and(
        eq(verificationCodes.id, input.authyId),
        eq(verificationCodes.phone, phoneDigits(input.phone)),
        isNotNull(verificationCodes.verified_at),
        gt(
          verificationCodes.verified_at,
          new Date(now.getTime() - VERIFICATION_RULES.verifiedTtlMs),
        ),
        isNull(verificationCodes.used_at),
      ),
    )
    .returning({ id: verificationCodes.id })
  if (!used) throw new VerificationError(400, VERIFICATION_MESSAGES.notVerified)
}

/** Whether a verification is verified for this phone and still unused (a read-only pre-check). */
export async function isVerified(
  db: Database,
  input: { authyId: string; phone: string },
  now: Date,
): Promise<boolean> {
  const [row] = await db
    .select({ id: verificationCodes.id })
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.id, input.authyId),
        eq(verificationCodes.phone, phoneDigits(input.phone)),
        gt(
          verificationCodes.verified_at,
          new Date(now.getTime() - VERIFICATION_RULES.verifiedTtlMs),
        ),
        isNull(verificationCodes.used_at),
      ),
    )
    .limit(1)
  return row !== undefined
}
