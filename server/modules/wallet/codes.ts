/**
 * The wallet's sign-in codes. A code is asked for a contact (an e-mail or a phone) of a practice;
 * the answer never says whether the contact is a patient there: the counters, the answer and the
 * work done before the answer are the same, and the lookup and the sending happen after the
 * answer has left ({@link OutboundQueue.later}), as forgot-password does.
 *
 * A code is 6 digits from the CSPRNG, stored as a salted SHA-256, valid 10 minutes, single-use;
 * a new code ends the contact's earlier ones. Wrong codes are counted per contact (known or not)
 * and per client address: the 5th wrong code for a contact locks its sign-in for 15 minutes and
 * spends its codes (server/modules/wallet/limits.ts).
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm'
import {
  parseContact,
  WALLET_CODE_LENGTH,
  WALLET_CODE_MINUTES,
  WALLET_LOCK_MINUTES,
  WALLET_MESSAGES,
  WALLET_RESEND_AFTER_SECONDS,
  type WalletCodeAnswer,
  type WalletContact,
} from '#domain/wallet.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { ServerContext } from '#server/context.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { patients, practices, walletCodes } from '#server/db/schema.ts'
import { DomainError, gone, invalid, notFound, rejected } from '#server/lib/domain-error.ts'
import { createRateLimiter, type RateLimitRule } from '#server/security/rate-limit.ts'
import { CODE_TTL_MS, WALLET_LIMITS } from './limits.ts'
import { openPatientSession } from './sessions.ts'

type CodeContext = Pick<ServerContext, 'db' | 'now' | 'outbound' | 'rateLimitStore' | 'config'>

/** The contact as the tables key it: SHA-256 of the practice and the normalised contact. */
export function contactHash(practiceId: number, contact: WalletContact): string {
  return createHash('sha256')
    .update(`wallet:${practiceId}:${contact.kind}:${contact.value}`)
    .digest('hex')
}

function codeHash(salt: string, code: string): string {
  return createHash('sha256').update(`${salt}:${code}`).digest('hex')
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/** A fresh 6-digit code, leading zeros allowed. */
export function newWalletCode(): string {
  return String(randomInt(0, 10 ** WALLET_CODE_LENGTH)).padStart(WALLET_CODE_LENGTH, '0')
}

/** The 429 of the code calls, with when to try again. */
function tooMany(message: string, reason: 'locked' | 'rate_limited', seconds: number) {
  return new DomainError('too-many', message, {
    reason,
    retry_after_seconds: seconds,
    retryAfterSeconds: seconds,
  })
}

/** The practice of a wallet link, or 404. */
export async function walletPractice(db: Database, practiceId: number) {
  const [row] = await db
    .select({ id: practices.id, name: practices.practice_name, logo: practices.image_path })
    .from(practices)
    .where(eq(practices.id, practiceId))
  if (!row) throw notFound(WALLET_MESSAGES.practiceNotFound)
  return { id: row.id, name: row.name, logo_url: row.logo ?? null }
}

/**
 * The patient a contact names in a practice: not archived; an e-mail compared without case, a
 * phone in E.164. Two patients with one contact (a family's phone): the one seen most recently.
 */
async function patientByContact(
  ex: Database | Transaction,
  practiceId: number,
  contact: WalletContact,
) {
  const [row] = await ex
    .select({
      id: patients.id,
      first_name: patients.first_name,
      email: patients.email,
      phone: patients.phone,
      unsubscribe_id: patients.unsubscribe_id,
    })
    .from(patients)
    .where(
      and(
        eq(patients.practice_id, practiceId),
        isNull(patients.archived_at),
        contact.kind === 'email'
          ? sql`lower(${patients.email}) = ${contact.value}`
          : eq(patients.phone, contact.value),
      ),
    )
    .orderBy(sql`${patients.last_visit_at} desc nulls last`, desc(patients.id))
    .limit(1)
  return row
}

/** The code's message: an SMS, or an e-mail in the practice's name. */
function codeMessage(
  practiceName: string,
  contact: WalletContact,
  code: string,
  publicUrl: string,
  practiceId: number,
) {
  const text = `${code} is your ${practiceName} wallet code. It expires in ${WALLET_CODE_MINUTES} minutes. If you did not ask for it, ignore this message.`
  if (contact.kind === 'phone') return { channel: 'sms' as const, to: contact.value, text, code }
  const link = `${publicUrl.replace(/\/+$/, '')}/wallet/${practiceId}`
  return {
    channel: 'email' as const,
    to: contact.value,
    subject: `${code} is your ${practiceName} wallet code`,
    text: `Hello,\n\n${code} is your code to open your ${practiceName} wallet (${link}). It expires in ${WALLET_CODE_MINUTES} minutes.\n\nIf you did not ask for it, ignore this e-mail: nobody can open your wallet without the code.`,
    link,
  }
}

/** The wallet's sign-in: asking for a code, and trading it for a patient session. */
export function createWalletSignIn(ctx: CodeContext) {
  const limiter = createRateLimiter(ctx.rateLimitStore)
  const nowMs = () => ctx.now().getTime()
  const lockKey = (hash: string) => `wallet-wrong:contact:${hash}`
  const ipKey = (ip: string) => `wallet-wrong:ip:${ip}`

  /** Refuses with 429 when `rule` is spent for `key`, counting this attempt. */
  async function consume(key: string, rule: RateLimitRule) {
    const decision = await limiter.consume(key, rule, nowMs())
    if (!decision.allowed) {
      throw tooMany(WALLET_MESSAGES.tooManyCodes, 'rate_limited', decision.retryAfterSeconds)
    }
  }

  /** Sends a code when the contact is a patient of the practice; run after the answer left. */
  async function sendCode(
    practice: { id: number; name: string },
    contact: WalletContact,
    hash: string,
  ) {
    const patient = await patientByContact(ctx.db, practice.id, contact)
    if (!patient) return
    const code = newWalletCode()
    const salt = randomBytes(16).toString('hex')
    const at = ctx.now()
    await ctx.db.transaction(async (tx) => {
      // Only the newest code works: the earlier ones of this contact end now.
      await tx
        .update(walletCodes)
        .set({ used_at: at })
        .where(
          and(
            eq(walletCodes.practice_id, practice.id),
            eq(walletCodes.contact_hash, hash),
            isNull(walletCodes.used_at),
          ),
        )
      await tx.insert(walletCodes).values({
        practice_id: practice.id,
        patient_id: patient.id,
        contact_hash: hash,
        channel: contact.kind === 'phone' ? 'sms' : 'email',
        salt,
        code_hash: codeHash(salt, code),
        expires_at: new Date(at.getTime() + CODE_TTL_MS),
        created_at: at,
      })
      await ctx.outbound.enqueue(
        tx,
        codeMessage(practice.name, contact, code, ctx.config.publicUrl, practice.id),
      )
    })
  }

  return {
    /**
     * `POST /wallet/{practiceId}/code`: counts the request per address and per contact (429 past
     * either limit, known contact or not), and answers 202 at once; the code is looked up and
     * sent after the answer, and only to a patient of the practice whose sign-in is not locked.
     */
    async requestCode(practiceId: number, text: string, ip: string): Promise<WalletCodeAnswer> {
      const practice = await walletPractice(ctx.db, practiceId)
      const contact = parseContact(text)
      if (!contact) throw invalid(WALLET_MESSAGES.contactInvalid)
      const hash = contactHash(practiceId, contact)
      await consume(`wallet-code:ip:${ip}`, WALLET_LIMITS.codesPerIp)
      await consume(`wallet-code:contact:${hash}`, WALLET_LIMITS.codesPerContact)
      const locked = await limiter.check(lockKey(hash), WALLET_LIMITS.wrongCodesPerContact, nowMs())
      if (locked.allowed) ctx.outbound.later(() => sendCode(practice, contact, hash))
      return { sent: true, resend_after_seconds: WALLET_RESEND_AFTER_SECONDS }
    },

    /**
     * `POST /wallet/{practiceId}/session`: checks the code against the contact's newest code of
     * this practice (a dummy one for an unknown contact, so the work is the same) and opens a
     * patient session. A wrong, spent or unknown code answers 401 alike; an expired one 410; the
     * 5th wrong code for the contact, and every try while locked, 429.
     */
    async openSession(
      practiceId: number,
      text: string,
      code: string,
      ip: string,
    ): Promise<{ token: string; expires_at: string }> {
      await walletPractice(ctx.db, practiceId)
      const contact = parseContact(text)
      if (!contact) throw invalid(WALLET_MESSAGES.contactInvalid)
      const hash = contactHash(practiceId, contact)
      const rule = WALLET_LIMITS.wrongCodesPerContact
      const lock = await limiter.check(lockKey(hash), rule, nowMs())
      if (!lock.allowed) {
        throw tooMany(
          WALLET_MESSAGES.locked(Math.max(1, Math.ceil(lock.retryAfterSeconds / 60))),
          'locked',
          lock.retryAfterSeconds,
        )
      }
      const byIp = await limiter.check(ipKey(ip), WALLET_LIMITS.wrongCodesPerIp, nowMs())
      if (!byIp.allowed) {
        throw tooMany(WALLET_MESSAGES.tooManyCodes, 'rate_limited', byIp.retryAfterSeconds)
      }
      const at = ctx.now()
      const [row] = await ctx.db
        .select()
        .from(walletCodes)
        .where(and(eq(walletCodes.practice_id, practiceId), eq(walletCodes.contact_hash, hash)))
        .orderBy(desc(walletCodes.id))
        .limit(1)
      // An unknown contact is checked against a hash nobody has: the same work, the same answer.
      const salt = row?.salt ?? DUMMY.salt
      const matches =
        sameHash(row?.code_hash ?? DUMMY.hash, codeHash(salt, code)) && row !== undefined
      if (row && matches && !row.used_at && row.expires_at.getTime() <= at.getTime()) {
        throw gone(WALLET_MESSAGES.codeExpired, { reason: 'expired' })
      }
      if (!row || !matches || row.used_at || row.expires_at.getTime() <= at.getTime()) {
        return refuse(hash, ip, practiceId, row?.patient_id ?? null)
      }
      // Spend the code and open the session together: a code opens one session, once.
      return ctx.db.transaction(async (tx) => {
        const [spent] = await tx
          .update(walletCodes)
          .set({ used_at: at })
          .where(
            and(
              eq(walletCodes.id, row.id),
              isNull(walletCodes.used_at),
              gt(walletCodes.expires_at, at),
            ),
          )
          .returning({ id: walletCodes.id })
        if (!spent) throw wrongCode()
        const [patient] = await tx
          .select({ id: patients.id, archived_at: patients.archived_at })
          .from(patients)
          .where(and(eq(patients.id, row.patient_id), eq(patients.practice_id, practiceId)))
        if (!patient || patient.archived_at) throw wrongCode()
        const session = await openPatientSession(tx, { practiceId, patientId: patient.id }, at)
        await recordWithin(
          tx,
          {
            action: 'wallet.signed_in',
            practiceId,
            ip,
            details: { patient_id: patient.id, channel: row.channel, session_id: session.id },
          },
          at,
        )
        await limiter.reset(lockKey(hash))
        return { token: session.token, expires_at: session.expiresAt.toISOString() }
      })
    },
  }

  /** Counts a wrong code; the one that reaches the limit locks the contact and spends its codes. */
  async function refuse(
    hash: string,
    ip: string,
    practiceId: number,
    patientId: number | null,
  ): Promise<never> {
    const at = ctx.now()
    await limiter.fail(ipKey(ip), WALLET_LIMITS.wrongCodesPerIp, at.getTime())
    await limiter.fail(lockKey(hash), WALLET_LIMITS.wrongCodesPerContact, at.getTime())
    const after = await limiter.check(
      lockKey(hash),
      WALLET_LIMITS.wrongCodesPerContact,
      at.getTime(),
    )
    // The same statements for a known and an unknown contact: the update finds no row for the latter.
    await ctx.db
      .update(walletCodes)
      .set(
        after.allowed
          ? { attempts: sql`${walletCodes.attempts} + 1` }
          : { attempts: sql`${walletCodes.attempts} + 1`, used_at: at },
      )
      .where(
        and(
          eq(walletCodes.practice_id, practiceId),
          eq(walletCodes.contact_hash, hash),
          isNull(walletCodes.used_at),
        ),
      )
    if (after.allowed) throw wrongCode()
    await recordWithin(
      ctx.db,
      {
        action: 'wallet.locked',
        practiceId,
        ip,
        details: {
          patient_id: patientId,
          tries: WALLET_LIMITS.wrongCodesPerContact.max,
          minutes: WALLET_LOCK_MINUTES,
        },
      },
      at,
    )
    throw tooMany(WALLET_MESSAGES.locked(WALLET_LOCK_MINUTES), 'locked', after.retryAfterSeconds)
  }
}

/** A wrong code: the routes answer it 401 (the missing credential), known contact or not. */
const wrongCode = () => rejected(WALLET_MESSAGES.codeWrong, { reason: 'wrong' })

/** What an unknown contact's code is compared with: a salt and a hash of no code. */
const DUMMY = (() => {
  const salt = randomBytes(16).toString('hex')
  return { salt, hash: createHash('sha256').update(`${salt}:dummy`).digest('hex') }
})()
