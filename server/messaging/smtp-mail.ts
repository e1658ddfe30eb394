import nodemailer from 'nodemailer'
import { escapeHtml } from '#server/lib/html.ts'
import { type Logger, maskEmail } from '#server/lib/log.ts'
import type { MailMessage, MailService } from '#server/messaging/mail.ts'

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

/** A header name as RFC 5322 allows it (printable ASCII but the colon), never one we set. */
const HEADER_NAME = /^[!-9;-~]+$/
/** Headers nodemailer builds from the message itself: a custom one may not replace them. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'content-type',
  'content-transfer-encoding',
  'mime-version',
  'sender',
  'reply-to',
])

/**
 * The extra headers of a message, checked: a name must be a header name and not one the message
 * sets itself, a value one line of printable text (no CR, LF or other control character), so
 * nothing a value carries can start a header or a body of its own (header injection). A header
 * that breaks a rule is refused with its name, never sent in part.
 */
export function safeHeaders(headers: Record<string, string>): Record<string, string> {
  const checked: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) {
      throw new Error(`The mail header "${name.replace(/[^\x20-\x7e]/g, '?')}" cannot be set`)
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new Error(`The mail header "${name}" has a line break or a control character`)
    }
    checked[name] = value
  }
  return checked
}

type NodemailerError = Error & { code?: unknown; responseCode?: unknown }

/**
 * The SMTP implementation of {@link MailService} (nodemailer), chosen when `SMTP_URL` is set. Each
 * send opens a connection, upgrades it with STARTTLS when the server offers it (`smtps://` is TLS
 * from the start; certificates are verified), logs in with the URL's user and password, and
 * delivers a plain-text message, plus an HTML alternative (the message's own, else one with the
 * link as an anchor when the message has a link) and the message's extra headers, checked by
 * {@link safeHeaders}. Options in the URL's query (`?requireTLS=true`) reach nodemailer as they
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
    async send({ to, subject, text, link, html, headers, messageId }: MailMessage) {
      const extra = headers && Object.keys(headers).length > 0 ? safeHeaders(headers) : undefined
      const alternative = html ?? (link ? mailHtml(text, link) : undefined)
      try {
        const info = await transport.sendMail({
          to,
          subject,
          text,
          // The queue's own Message-ID, the same on every attempt; else nodemailer makes one.
          ...(messageId ? { messageId } : {}),
          ...(extra ? { headers: extra } : {}),
          ...(alternative ? { html: alternative } : {}),
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
