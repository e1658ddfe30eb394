import ky, { HTTPError, TimeoutError } from 'ky'
import * as v from 'valibot'
import {
  WALLET_LOCK_MINUTES,
  type WalletCodeAnswer,
  WalletCodeAnswerSchema,
  type WalletSessionAnswer,
  WalletSessionAnswerSchema,
} from '#domain/wallet.ts'
import { WALLET_SIGN_IN_TEXT } from '#machines/wallet-sign-in/messages.ts'
import type {
  OpenWalletSessionInput,
  SendWalletCodeInput,
} from '#machines/wallet-sign-in/wallet-sign-in.machine.ts'
import { WalletSignInError } from '#machines/wallet-sign-in/wallet-sign-in-error.ts'

/**
 * The two public calls of the wallet's sign-in (domain/wallet.ts), and what their refusals mean
 * for the sign-in statechart: a {@link WalletSignInError} with the reason and the sentence. Not
 * the staff app's client (src/lib/http.ts): no staff session, and the wallet's bundle stays small.
 */

/** The server's error shape, with the wallet's `details` (reason, the lock's wait). */
const RefusalSchema = v.object({
  error: v.object({
    status: v.number(),
    message: v.string(),
    details: v.optional(
      v.looseObject({
        reason: v.optional(v.string()),
        retry_after_seconds: v.optional(v.number()),
      }),
    ),
  }),
})

/** The end of a lock as the patient's clock shows it: "18:42" (or "6:42 PM"). */
export function formatLockEnd(until: Date): string {
  return new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' }).format(until)
}

function xsrfToken(): string | undefined {
  const found = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(globalThis.document?.cookie ?? '')?.[1]
  return found ? decodeURIComponent(found) : undefined
}

/** The API under the page's origin (a relative prefix is not a URL outside a browser). */
function api() {
  return ky.create({
    prefixUrl: new URL('/api/', globalThis.location?.origin ?? 'http://localhost').href,
    timeout: 20_000,
    retry: 0,
    hooks: {
      beforeRequest: [
        (request) => {
          // The double-submit pair (decision 001): the page carries the XSRF cookie.
          const xsrf = xsrfToken()
          if (xsrf) request.headers.set('X-XSRF-TOKEN', xsrf)
        },
      ],
    },
  })
}

async function refusalOf(error: HTTPError) {
  const body: unknown = await error.response
    .clone()
    .json()
    .catch(() => undefined)
  const parsed = v.safeParse(RefusalSchema, body)
  return parsed.success ? parsed.output.error : null
}

/** A failure that is not a refusal of the code: no connection, an odd answer, the server's error. */
async function failed(error: unknown): Promise<WalletSignInError> {
  if (error instanceof WalletSignInError) return error
  if (error instanceof HTTPError) {
    const refusal = await refusalOf(error)
    const message = refusal?.message.trim()
    if (message && error.response.status < 500) return new WalletSignInError('failed', message)
    if (error.response.status === 503) {
      return new WalletSignInError('failed', WALLET_SIGN_IN_TEXT.offline)
    }
    return new WalletSignInError('failed', WALLET_SIGN_IN_TEXT.failed)
  }
  // fetch rejects with a TypeError when the request cannot be sent at all.
  if (error instanceof TimeoutError || error instanceof TypeError) {
    return new WalletSignInError('failed', WALLET_SIGN_IN_TEXT.offline)
  }
  return new WalletSignInError('failed', WALLET_SIGN_IN_TEXT.failed)
}

/** A refused session: a wrong code (401), an expired one (410), a lock (429 `locked`). */
async function sessionFailure(error: unknown, now: number): Promise<WalletSignInError> {
  if (!(error instanceof HTTPError)) return failed(error)
  const refusal = await refusalOf(error)
  const reason = refusal?.details?.reason
  const status = error.response.status
  if (reason === 'wrong' || (status === 401 && reason === undefined)) {
    return new WalletSignInError('wrong', WALLET_SIGN_IN_TEXT.codeWrong)
  }
  if (reason === 'expired' || (status === 410 && reason === undefined)) {
    return new WalletSignInError('expired', WALLET_SIGN_IN_TEXT.codeExpired)
  }
  if (reason === 'locked') {
    const header = Number(error.response.headers.get('Retry-After'))
    const seconds =
      refusal?.details?.retry_after_seconds ??
      (Number.isFinite(header) && header > 0 ? header : WALLET_LOCK_MINUTES * 60)
    const until = new Date(now + seconds * 1000)
    return new WalletSignInError('locked', WALLET_SIGN_IN_TEXT.locked(formatLockEnd(until)), {
      retryAfterSeconds: seconds,
      until: until.toISOString(),
    })
  }
  return failed(error)
}

/** `POST /api/wallet/{practiceId}/code`: 202 `{sent, resend_after_seconds}`. */
export async function sendWalletCode(input: SendWalletCodeInput): Promise<WalletCodeAnswer> {
  try {
    const answer = await api()
      .post(`wallet/${input.practiceId}/code`, { json: { contact: input.contact } })
      .json()
    return v.parse(WalletCodeAnswerSchema, answer)
  } catch (error) {
    throw await failed(error)
  }
}

/** `POST /api/wallet/{practiceId}/session`: the patient session `{token, expires_at}`. */
export async function openWalletSession(
  input: OpenWalletSessionInput,
): Promise<WalletSessionAnswer> {
  try {
    const answer = await api()
      .post(`wallet/${input.practiceId}/session`, {
        json: { contact: input.contact, code: input.code },
      })
      .json()
    return v.parse(WalletSessionAnswerSchema, answer)
  } catch (error) {
    throw await sessionFailure(error, Date.now())
  }
}
