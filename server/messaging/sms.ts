import { createHash } from 'node:crypto'
import { and, eq, lte } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { outbox } from '#server/db/schema.ts'
import { type Logger, maskPhone } from '#server/lib/log.ts'

/** A text message carrying a verification code. */
export type SmsMessage = {
  to: string
  text: string
  /** The code inside `text`, kept apart so the development outbox can show it plainly. */
  code: string
}

/** Sends SMS. Routes receive it injected, so tests and development never reach a provider. */
export interface SmsService {
  send(message: SmsMessage): Promise<void>
}

/** How often a production server without Twilio removes expired codes from the outbox. */
export const OUTBOX_SMS_SWEEP_MS = 60 * 1000

/** What stands in a production outbox row's text where the code was. */
export const HIDDEN_CODE = '[code hidden]'

/**
 * How a production outbox row keeps a code: its SHA-256, so that an operator can check a code a
 * person reads out against what was sent, and nobody can read one off the table. A 6-digit code's
 * hash is quick to reverse by trying them all, so the row is kept no longer than the code is
 * valid ({@link sweepExpiredOutboxSms}).
 */
export function outboxCodeHash(code: string): string {
  return `sha256:${createHash('sha256').update(code, 'utf8').digest('hex')}`
}

/**
 * The outbox implementation: records each message in the `outbox` table for
 * `GET /api/dev/outbox`. The server uses it unless `TWILIO_*` is set (then `createTwilioSms` in
 * twilio-sms.ts).
 *
 * In development (and tests) the row keeps the code readable: the development outbox and the
 * browser journeys read codes from it. In production (`production: true`) nobody reads the
 * outbox, yet the table would keep every code in clear text for good: there the text
 * keeps {@link HIDDEN_CODE} instead of the code, the `code` column its hash, and every send
 * removes the SMS rows whose code has expired (`production.codeTtlMs`: the lifetime of a code,
 * `VERIFICATION_RULES.codeTtlMs` of verification.ts, passed in because that module sends through
 * this one).
 */
export function createOutboxSms(
  db: Database,
  {
    now = () => new Date(),
    log,
    production,
  }: { now?: () => Date; log?: Logger; production?: { codeTtlMs: number } } = {},
): SmsService {
  return {
    async send({ to, text, code }) {
      const at = now()
      if (production) {
        await sweepExpiredOutboxSms(db, at, production.codeTtlMs)
        await db.insert(outbox).values({
          channel: 'sms',
          to,
          text: code ? text.replaceAll(code, HIDDEN_CODE) : text,
          code: code ? outboxCodeHash(code) : null,
          sent_at: at,
        })
      } else {
        await db.insert(outbox).values({ channel: 'sms', to, text, code, sent_at: at })
      }
      // The code and the text stay out of the log on purpose.
      log?.info(`SMS to ${maskPhone(to)} recorded in the outbox`)
    },
  }
}

/**
 * Removes the outbox's SMS rows whose code has expired (sent at least `codeTtlMs` before `at`),
 * also rows an earlier version wrote in clear text. Answers how many went.
 */
export async function sweepExpiredOutboxSms(
  db: Database,
  at: Date,
  codeTtlMs: number,
): Promise<number> {
  const expiredBefore = new Date(at.getTime() - codeTtlMs)
  const removed = await db
    .delete(outbox)
    .where(and(eq(outbox.channel, 'sms'), lte(outbox.sent_at, expiredBefore)))
    .returning({ id: outbox.id })
  return removed.length
}

/**
 * Runs {@link sweepExpiredOutboxSms} now and every {@link OUTBOX_SMS_SWEEP_MS}, so a code is gone
 * soon after it expires even when no other SMS follows it. Answers the function that stops it
 * (before the database closes). Any instance may run it: the delete is the same on all of them.
 */
export function scheduleOutboxSmsSweep({
  db,
  log,
  codeTtlMs,
  now = () => new Date(),
  everyMs = OUTBOX_SMS_SWEEP_MS,
}: {
  db: Database
  log: Logger
  codeTtlMs: number
  now?: () => Date
  everyMs?: number
}): () => Promise<void> {
  let running: Promise<void> | undefined
  const sweep = () => {
    running ??= sweepExpiredOutboxSms(db, now(), codeTtlMs)
      .then(() => {})
      .catch((error: unknown) => log.error('Removing expired codes from the outbox failed', error))
      .finally(() => {
        running = undefined
      })
    return running
  }
  void sweep()
  const timer = setInterval(() => void sweep(), everyMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
