/**
 * Redemption codes: the 6-digit code texted to the patient, checked before a posting (each check
 * spends one of its attempts) and used once inside it; and the consent a redemption needs.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { and, count, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm'
import { can, PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { pointsText } from '#domain/points.ts'
import { codeNeeded, formatDollars, VISIT_MESSAGES } from '#domain/visits.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { AuthUser } from '#server/context.ts'
import type { Transaction } from '#server/db/client.ts'
import { promotions, redemptionCodes } from '#server/db/schema.ts'
import { DomainError, notAllowed, notFound } from '#server/lib/domain-error.ts'
import { randomToken } from '#server/lib/random.ts'
import { newCode, phoneDigits, VERIFICATION_RULES } from '#server/messaging/verification.ts'
import {
  type CheckoutDeps,
  type CodeAmount,
  type Consent,
  type Executor,
  lockPatient,
  PermissionRefusal,
  patientOf,
  type RedemptionRequest,
  readRules,
  unprocessable,
} from './shared.ts'

function hashCode(id: string, code: string): string {
  return createHash('sha256').update(`redeem:${id}:${code}`).digest('hex')
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * A patient's phone as an SMS address: written with `+` it is already international; 10 digits
 * are a North American number (the product's market, as sign-up's default country code +1).
 */
export function smsAddress(phone: string): string {
  const digits = phoneDigits(phone)
  if (phone.trim().startsWith('+')) return `+${digits}`
  return digits.length === 10 ? `+1${digits}` : `+${digits}`
}

export function createRedemptionCodes(deps: CheckoutDeps) {
  const { db, now } = deps

  /**
   * Checks a code before the posting's transaction: the attempt is spent (and kept) first, so
   * parallel or repeated guesses cannot pass the limit even when the posting fails afterwards.
   */
  async function checkCode(
    practiceId: number,
    patientId: number,
    verification: { authyId: string; code: string },
    amount: CodeAmount,
  ): Promise<string> {
    const [row] = await db
      .select()
      .from(redemptionCodes)
      .where(eq(redemptionCodes.id, verification.authyId))
    if (!row || row.practice_id !== practiceId || row.patient_id !== patientId) {
      throw unprocessable(VISIT_MESSAGES.codeIncorrect)
    }
    if (row.used_at) throw unprocessable(VISIT_MESSAGES.codeUsed)
    if (row.expires_at.getTime() <= now().getTime()) throw unprocessable(VISIT_MESSAGES.codeExpired)
    const [spent] = await db
      .update(redemptionCodes)
      .set({ attempts: sql`${redemptionCodes.attempts} + 1` })
      .where(
        and(
          eq(redemptionCodes.id, row.id),
          isNull(redemptionCodes.used_at),
          lt(redemptionCodes.attempts, VERIFICATION_RULES.maxAttempts),
        ),
      )
      .returning({ id: redemptionCodes.id })
    if (!spent) throw unprocessable(VISIT_MESSAGES.codeAttempts)
    if (!sameHash(row.code_hash, hashCode(row.id, verification.code))) {
      throw unprocessable(VISIT_MESSAGES.codeIncorrect)
    }
    // The code redeems at most the amount it was sent for.
    // A code for a visit's points and its offer covers both, and no other.
    // A code for the bank pays at most its cents from the bank.
    const fits =
      (row.promotion_id !== null
        ? amount.promotion_id === row.promotion_id
        : amount.promotion_id === undefined) &&
      (amount.points === undefined || (row.points !== null && amount.points <= row.points)) &&
      (amount.bank_cents === undefined ||
        (row.bank_cents !== null && amount.bank_cents <= row.bank_cents))
    if (!fits) throw unprocessable(VISIT_MESSAGES.codeOtherAmount(await codeWords(row)))
    return row.id
  }

  /** What a code was sent for, in the SMS's words: "100 points ($10.00)" or the offer's title. */
  async function codeWords(
    row: {
      practice_id: number
      points: number | null
      promotion_id: number | null
      bank_cents?: number | null
    },
    ex: Executor = db,
  ) {
    const bank = row.bank_cents ? `${formatDollars(row.bank_cents)} from the membership bank` : null
    const rest = await pointsAndOfferWords(row, ex)
    if (!bank) return rest ?? 'another redemption'
    return rest ? `${rest} and ${bank}` : bank
  }

  /** Points and an offer in the SMS's words, or null when the code is for neither. */
  async function pointsAndOfferWords(
    row: { practice_id: number; points: number | null; promotion_id: number | null },
    ex: Executor,
  ): Promise<string | null> {
    let offer: string | null = null
    if (row.promotion_id !== null) {
      const [promotion] = await ex
        .select({ title: promotions.title })
        .from(promotions)
        .where(eq(promotions.id, row.promotion_id))
      offer = `the offer “${promotion?.title ?? 'an offer'}”`
    }
    if (row.points === null) return offer
    const rules = await readRules(ex, row.practice_id)
    const points = `${pointsText(row.points)} (${formatDollars(row.points * rules.point_value_cents)})`
    return offer ? `${points} and ${offer}` : points
  }

  /** Uses the code once, inside the posting's transaction. */
  async function consumeCode(tx: Transaction, codeId: string, patientId: number) {
    const [used] = await tx
      .update(redemptionCodes)
      .set({ used_at: now() })
      .where(
        and(
          eq(redemptionCodes.id, codeId),
          eq(redemptionCodes.patient_id, patientId),
          isNull(redemptionCodes.used_at),
        ),
      )
      .returning({ id: redemptionCodes.id })
    if (!used) throw unprocessable(VISIT_MESSAGES.codeUsed)
  }

  /**
   * Whether this person may redeem `points` now: above the programme's threshold (0 = always) the
   * patient's code is needed, or a manager's override with a reason.
   */
  async function consentFor(
    user: AuthUser,
    patientId: number,
    points: number,
    threshold: number,
    request: RedemptionRequest,
  ): Promise<Consent> {
    if (request.override) {
      if (!can(user.access_rights, 'redeem.override')) {
        throw new PermissionRefusal('redeem.override', PERMISSION_REFUSALS['redeem.override'])
      }
      return { kind: 'override', reason: request.override.reason }
    }
    // Paying from the membership bank always needs the patient's code: it is their money.
    const bank = request.bank_cents ?? 0
    const pointsNeedCode =
      (points > 0 || request.promotion_id !== undefined) && codeNeeded(points, threshold)
    if (!pointsNeedCode && bank === 0) return { kind: 'none' }
    if (!request.verification) {
      throw notAllowed(
        pointsNeedCode ? VISIT_MESSAGES.codeNeeded(points) : VISIT_MESSAGES.bankCodeNeeded(bank),
      )
    }
    const amount: CodeAmount = {
      ...(request.promotion_id !== undefined
        ? {
            promotion_id: request.promotion_id,
            ...(request.points !== undefined ? { points: request.points } : {}),
          }
        : points > 0 || bank === 0
          ? { points }
          : {}),
      ...(bank > 0 ? { bank_cents: bank } : {}),
    }
    return {
      kind: 'code',
      codeId: await checkCode(user.practice_id, patientId, request.verification, amount),
    }
  }

  return {
    checkCode,
    consumeCode,
    consentFor,

    /**
     * `POST /patients/{id}/redemption-code/check`: whether the typed code is the
     * patient's newest, unused, unexpired code for this amount. Spends one of its 5 attempts (so
     * checking is no way around the limit) and uses nothing.
     */
    async checkCodeFor(
      user: AuthUser,
      patientId: number,
      input: { authyId: string; code: string } & CodeAmount,
    ): Promise<{ valid: true }> {
      await patientOf(db, user.practice_id, patientId)
      await checkCode(user.practice_id, patientId, input, input)
      return { valid: true }
    },

    /**
     * `POST /patients/{id}/redemption-code`: texts the patient a 6-digit code (valid 10 minutes,
     * 5 attempts, once, for this patient only; 30 s between codes and 5 an hour per patient),
     * recorded in the audit trail (`redemption.code_sent`, from `ip`) with the code's row.
     */
    async sendCode(
      user: AuthUser,
      patientId: number,
      amount: CodeAmount,
      ip: string | null,
      generateCode: () => string = newCode,
    ): Promise<{ authyId: string }> {
      const row = {
        practice_id: user.practice_id,
        // Points, an offer, or both (a visit's points and its offer, one code).
        points: amount.points ?? null,
        promotion_id: amount.promotion_id ?? null,
        bank_cents: amount.bank_cents ?? null,
      }
      const at = now()
      const code = generateCode()
      const authyId = randomToken(32)
      await db.transaction(async (tx) => {
        // The one read of the patient, locked: its phone and the practice's name come with it.
        const patient = await lockPatient(tx, user.practice_id, patientId)
        const digits = phoneDigits(patient.phone ?? '')
        if (digits.length < 7) throw unprocessable(VISIT_MESSAGES.noPhone)
        if (amount.promotion_id !== undefined) {
          const [promotion] = await tx
            .select({ id: promotions.id })
            .from(promotions)
            .where(
              and(
                eq(promotions.id, amount.promotion_id),
                eq(promotions.practice_id, user.practice_id),
              ),
            )
          if (!promotion) throw notFound(VISIT_MESSAGES.promotionNotFound)
        }
        const what = await codeWords(row, tx)
        const [latest] = await tx
          .select({ created_at: redemptionCodes.created_at })
          .from(redemptionCodes)
          .where(eq(redemptionCodes.patient_id, patientId))
          .orderBy(desc(redemptionCodes.created_at))
          .limit(1)
        if (latest) {
          const wait = latest.created_at.getTime() + VERIFICATION_RULES.resendGapMs - at.getTime()
          if (wait > 0) {
            const seconds = Math.ceil(wait / 1000)
            throw new DomainError('too-many', VISIT_MESSAGES.codeTooSoon(seconds), {
              retryAfterSeconds: seconds,
            })
          }
        }
        const [sent] = await tx
          .select({ n: count() })
          .from(redemptionCodes)
          .where(
            and(
              eq(redemptionCodes.patient_id, patientId),
              gt(redemptionCodes.created_at, new Date(at.getTime() - 60 * 60 * 1000)),
            ),
          )
        if ((sent?.n ?? 0) >= VERIFICATION_RULES.maxCodesPerHour) {
          throw new DomainError('too-many', VISIT_MESSAGES.tooManyCodes, {
            retryAfterSeconds: 3600,
          })
        }
        // Only the newest code of a patient counts.
        await tx
          .update(redemptionCodes)
          .set({ expires_at: at })
          .where(
            and(
              eq(redemptionCodes.patient_id, patientId),
              isNull(redemptionCodes.used_at),
              gt(redemptionCodes.expires_at, at),
            ),
          )
        await tx.insert(redemptionCodes).values({
          id: authyId,
          practice_id: user.practice_id,
          patient_id: patientId,
          code_hash: hashCode(authyId, code),
          points: row.points,
          promotion_id: row.promotion_id,
          bank_cents: row.bank_cents,
          expires_at: new Date(at.getTime() + VERIFICATION_RULES.codeTtlMs),
          attempts: 0,
          created_by: user.id,
          created_at: at,
        })
        await deps.outbound.enqueue(tx, {
          channel: 'sms',
          to: smsAddress(patient.phone ?? ''),
          text: `${patient.practice_name}: your code to redeem ${what} is ${code}. It is valid for 10 minutes, for this redemption only. Give it only to the front desk.`,
          code,
        })
        await recordWithin(
          tx,
          {
            action: 'redemption.code_sent',
            userId: user.id,
            practiceId: user.practice_id,
            ip,
            details: {
              patient_id: patientId,
              points: row.points,
              promotion_id: row.promotion_id,
              bank_cents: row.bank_cents,
            },
          },
          at,
        )
      })
      deps.outbound.kick()
      return { authyId }
    },
  }
}
