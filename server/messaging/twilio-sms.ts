import { type Logger, maskPhone } from '#server/lib/log.ts'
import type { SmsMessage, SmsService } from '#server/messaging/sms.ts'

/** Twilio's REST API; tests pass the address of a local stub instead. */
export const TWILIO_API_URL = 'https://api.twilio.com'

/** How long Twilio may take to answer one send. */
export const TWILIO_TIMEOUT_MS = 10_000

/** The Twilio account that sends SMS codes (`TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`, `TWILIO_FROM`). */
export type TwilioSettings = {
  /** `AC` and 32 hex digits. */
  accountSid: string
  authToken: string
  /** The sending number in E.164 (`+15550100100`) or a Messaging Service SID (`MG…`). */
  from: string
}

/** What {@link createTwilioSms} needs besides the account. */
export type TwilioSmsOptions = TwilioSettings & {
  /** Where the REST API lives; {@link TWILIO_API_URL} unless a test points it at a stub. */
  baseUrl?: string | undefined
  /** {@link TWILIO_TIMEOUT_MS} unless a test shortens it. */
  timeoutMs?: number | undefined
  log?: Logger | undefined
}

/** A text message Twilio did not take. The message never carries the text or the code. */
export class SmsDeliveryError extends Error {
  override readonly name = 'SmsDeliveryError'
  /** The HTTP status Twilio answered with, when it answered. */
  readonly status: number | undefined
  /** Twilio's error code, e.g. 21211 for an invalid To number. */
  readonly twilioCode: number | undefined

  constructor(
    message: string,
    details: { status?: number | undefined; twilioCode?: number | undefined } = {},
  ) {
    super(message)
    this.status = details.status
    this.twilioCode = details.twilioCode
  }
}

const E164 = /^\+[1-9]\d{1,14}$/
const MESSAGING_SERVICE_SID = /^MG[0-9a-f]{32}$/i

/**
 * The E.164 form of a phone number: `+` and up to 15 digits, spaces, dashes and brackets dropped
 * (`+1 (555) 010-0101` → `+15550100101`). Undefined when it is not one; a number without its
 * country code is not guessed at.
 */
export function toE164(phone: string): string | undefined {
  const trimmed = phone.trim()
  if (!trimmed.startsWith('+')) return undefined
  const e164 = `+${trimmed.slice(1).replace(/[\s().-]/g, '')}`
  return E164.test(e164) ? e164 : undefined
}

type TwilioErrorBody = { code?: unknown; message?: unknown }

async function readTwilioError(response: Response): Promise<{ code?: number; message?: string }> {
  try {
    const body = (await response.json()) as TwilioErrorBody
    return {
      ...(typeof body.code === 'number' ? { code: body.code } : {}),
      ...(typeof body.message === 'string' ? { message: body.message } : {}),
    }
  } catch {
    return {}
  }
}

/**
 * The Twilio implementation of {@link SmsService}, chosen when the three `TWILIO_*` variables are
 * set. Each send is one `POST {baseUrl}/2010-04-01/Accounts/{SID}/Messages.json` with basic auth
 * (SID and auth token) and the form fields `To` (E.164), `From` (or `MessagingServiceSid` for an
 * `MG…` sender) and `Body`, given {@link TWILIO_TIMEOUT_MS} to answer. A number that is not E.164,
 * an unreachable or slow Twilio and every non-2xx answer throw {@link SmsDeliveryError} with
 * Twilio's own message and code; the phone is masked and the text never appears.
 */
export function createTwilioSms({
  accountSid,
  authToken,
  from,
  baseUrl = TWILIO_API_URL,
  timeoutMs = TWILIO_TIMEOUT_MS,
  log,
}: TwilioSmsOptions): SmsService {
  const endpoint = new URL(
    `2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`,
    baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`,
  ).toString()
  const authorization = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`
  const sender: [string, string] = MESSAGING_SERVICE_SID.test(from)
    ? ['MessagingServiceSid', from]
    : ['From', from]

  return {
    async send({ to, text }: SmsMessage) {
      const masked = maskPhone(to.replace(/\D/g, ''))
      const number = toE164(to)
      if (!number) {
        throw new SmsDeliveryError(`SMS to ${masked} not sent: the number is not in E.164 form`)
      }
      // Twilio's messages quote the number; the log keeps only its last digits.
      const hide = (message: string) =>
        message.split(number).join(masked).split(number.slice(1)).join(masked)

      let response: Response
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            Authorization: authorization,
            'Content-Type': 'application/x-www-form-urlencoded',
            Accept: 'application/json',
          },
          body: new URLSearchParams([['To', number], sender, ['Body', text]]),
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError'
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
        throw new SmsDeliveryError(
          timedOut
            ? `SMS to ${masked} not sent: Twilio did not answer within ${timeoutMs / 1000} s`
            : `SMS to ${masked} not sent: Twilio could not be reached (${cause instanceof Error ? cause.message : String(cause)})`,
        )
      }

      if (!response.ok) {
        const failure = await readTwilioError(response)
        const reason = failure.message
          ? `${hide(failure.message)}${failure.code === undefined ? '' : ` (Twilio error ${failure.code})`}`
          : `HTTP ${response.status} ${response.statusText}`.trim()
        throw new SmsDeliveryError(
          `SMS to ${masked} not sent: Twilio answered ${response.status}: ${reason}`,
          { status: response.status, twilioCode: failure.code },
        )
      }
      const sent = (await response.json().catch(() => ({}))) as { sid?: unknown }
      // The code and the text stay out of the log on purpose.
      log?.info(
        `SMS to ${masked} sent through Twilio${typeof sent.sid === 'string' ? ` (${sent.sid})` : ''}`,
      )
    },
  }
}
