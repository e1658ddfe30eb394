import type { Database } from '#server/db/client.ts'
import { outbox } from '#server/db/schema.ts'
import { type Logger, maskEmail } from '#server/lib/log.ts'

/** An e-mail the product sends: invitation, password reset, welcome. */
export type MailMessage = {
  to: string
  subject: string
  text: string
  /** The one link the reader should follow (also shown in the development outbox). */
  link?: string | undefined
  /**
   * The HTML alternative, when the message has its own (patient e-mail, built with every value
   * escaped); without it SMTP makes one from `text` and `link`.
   */
  html?: string | undefined
  /** Extra headers, name to value (for example `List-Unsubscribe` on patient e-mail). */
  headers?: Record<string, string> | undefined
  /**
   * The `Message-ID` header, `<key@host>`: the queue gives each queued message one of its own, the
   * same on every attempt, so a copy sent again after a crash is recognisably the same message.
   */
  messageId?: string | undefined
}

/** Sends e-mail. Routes receive it injected, so tests and development never reach a mail server. */
export interface MailService {
  send(message: MailMessage): Promise<void>
}

/**
 * The outbox implementation: records each e-mail in the `outbox` table, where `GET /api/dev/outbox`
 * shows it. The server uses it unless `SMTP_URL` is set (then `createSmtpMail` in smtp-mail.ts).
 */
export function createOutboxMail(
  db: Database,
  { now = () => new Date(), log }: { now?: () => Date; log?: Logger } = {},
): MailService {
  return {
    async send({ to, subject, text, link, html, headers }) {
      await db.insert(outbox).values({
        channel: 'email',
        to,
        subject,
        text,
        link: link ?? null,
        html: html ?? null,
        headers: headers ?? {},
        sent_at: now(),
      })
      log?.info(`E-mail "${subject}" to ${maskEmail(to)} recorded in the outbox`)
    },
  }
}
