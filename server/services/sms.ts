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

/**
 * The outbox implementation: records each message in the `outbox` table for
 * `GET /api/dev/outbox`. The server uses it unless `TWILIO_*` is set (then `createTwilioSms` in
 * twilio-sms.ts).
 */
export function createOutboxSms(
  db: Database,
  { now = () => new Date(), log }: { now?: () => Date; log?: Logger } = {},
): SmsService {
  return {
    async send({ to, text, code }) {
      await db.insert(outbox).values({ channel: 'sms', to, text, code, sent_at: now() })
      // The code and the text stay out of the log on purpose.
      log?.info(`SMS to ${maskPhone(to)} recorded in the outbox`)
    },
  }
}
