import nodemailer from 'nodemailer'
import { type Logger, maskEmail } from '#server/lib/log.ts'
import type { MailMessage, MailService } from '#server/services/mail.ts'

/** The sender of every e-mail when `MAIL_FROM` is unset. */
export const DEFAULT_MAIL_FROM = 'Glow Rewards <no-reply@glowrewards.example>'

/** How long one SMTP step may take before the send gives up (connect, greeting, idle socket). */
export const SMTP_TIMEOUTS_MS = {
  connection: 10_000,
  greeting: 10_000,
  socket: 20_000,
} as const

/** An e-mail the SMTP server did not take. The message names the reason, never the body. */
export class MailDeliveryError extends Error {
  override readonly name = 'MailDeliveryError'
  /** nodemailer's error code: `ECONNECTION`, `EAUTH`, `EENVELOPE`, `ETIMEDOUT`, `ESOCKET`… */
  readonly code: string | undefined
  /** The SMTP reply code when the server answered, e.g. 535 or 550. */
  readonly responseCode: number | undefined

  constructor(
    message: string,
    details: { code?: string | undefined; responseCode?: number | undefined } = {},
  ) {
    // No `cause`: the transport's error object carries SMTP commands and replies that have no
    // place in a log line; the code and reply code are all a reader needs.
    super(message)
    this.code = details.code
    this.responseCode = details.responseCode
  }
}

/** What {@link createSmtpMail} needs. */
export type SmtpMailOptions = {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`. */
  url: string
  /** The From header; {@link DEFAULT_MAIL_FROM} when absent. */
  from?: string | undefined
  log?: Logger | undefined
  /** One limit for connect, greeting and idle socket instead of {@link SMTP_TIMEOUTS_MS}. */
  timeoutMs?: number | undefined
}

/**
 * `smtps://mail.example.com:465` from an SMTP URL: scheme, host and port only, so a log line never
 * carries the user name, the password or query options.
 */
export function describeSmtpUrl(url: string): string {
  const parsed = new URL(url)
  const scheme = parsed.protocol === 'smtps:' ? 'smtps' : 'smtp'
  const port = parsed.port || (scheme === 'smtps' ? '465' : '587')
  return `${scheme}://${parsed.hostname}:${port}`
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character)
}

/**
 * The HTML alternative of a message with a link: the text, escaped (names in it are typed by
 * people), in paragraphs, with the link as an anchor where the text shows it (or at the end).
 */
export function mailHtml(text: string, link: string): string {
  const escapedLink = escapeHtml(link)
  // Only web links become anchors; anything else stays plain text.
  const anchor = /^https?:\/\//i.test(link) ? `<a href="${escapedLink}">${escapedLink}</a>` : ''
  let body = escapeHtml(text)
  if (anchor) {
    body = body.includes(escapedLink)
      ? body.split(escapedLink).join(anchor)
      : `${body}\n\n${anchor}`
  }
  const paragraphs = body
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.split('\n').join('<br>\n')}</p>`)
  return `<!doctype html>\n<html><body>\n${paragraphs.join('\n')}\n</body></html>\n`
}

type NodemailerError = Error & { code?: unknown; responseCode?: unknown }

/**
 * The SMTP implementation of {@link MailService} (nodemailer), chosen when `SMTP_URL` is set. Each
 * send opens a connection, upgrades it with STARTTLS when the server offers it (`smtps://` is TLS
 * from the start; certificates are verified), logs in with the URL's user and password, and
 * delivers a plain-text message, plus an HTML alternative with the link as an anchor when the
 * message has a link. Options in the URL's query (`?requireTLS=true`) reach nodemailer as they
 * are. A refused or failed send throws {@link MailDeliveryError} with the reason and the recipient
 * masked; the body never appears in an error or a log line.
 */
export function createSmtpMail({
  url,
  from = DEFAULT_MAIL_FROM,
  log,
  timeoutMs,
}: SmtpMailOptions): MailService {
  if (!/^smtps?:\/\//i.test(url)) {
    throw new Error('The SMTP URL must start with smtp:// or smtps://')
  }
  const server = describeSmtpUrl(url)
  const transport = nodemailer.createTransport(
    {
      url,
      connectionTimeout: timeoutMs ?? SMTP_TIMEOUTS_MS.connection,
      greetingTimeout: timeoutMs ?? SMTP_TIMEOUTS_MS.greeting,
      socketTimeout: timeoutMs ?? SMTP_TIMEOUTS_MS.socket,
    },
    { from },
  )

  return {
    async send({ to, subject, text, link, headers }: MailMessage) {
      try {
        const info = await transport.sendMail({
          to,
          subject,
          text,
          ...(headers && Object.keys(headers).length > 0 ? { headers } : {}),
          ...(link ? { html: mailHtml(text, link) } : {}),
        })
        log?.info(`E-mail "${subject}" to ${maskEmail(to)} sent over ${server} (${info.messageId})`)
      } catch (error) {
        const failure = error as NodemailerError
        const reason = (failure.message ?? String(error)).split(to).join(maskEmail(to))
        throw new MailDeliveryError(
          `E-mail "${subject}" could not be sent over ${server}: ${reason}`,
          {
            code: typeof failure.code === 'string' ? failure.code : undefined,
            responseCode:
              typeof failure.responseCode === 'number' ? failure.responseCode : undefined,
          },
        )
      }
    },
  }
}
