/**
 * What can go wrong between Glow and Nextech, each in words an Admin can act on. Nextech signs
 * its API users in at Microsoft (Azure AD's token endpoint, resource-owner password grant), so a
 * refused sign-in comes as Azure AD's error answer: `{error, error_description, error_codes}`,
 * where `error_codes` (`AADSTS` numbers) say why. Microsoft documents those numbers and warns
 * that the texts change; we read the numbers and write our own sentences.
 */

/** Why a call to Nextech failed. */
export type NextechFailureReason =
  | 'credentials'
  | 'password_expired'
  | 'account_blocked'
  | 'mfa_required'
  | 'client_id'
  | 'practice_id'
  | 'token_expired'
  | 'rate_limited'
  | 'unreachable'
  | 'unexpected'

/** Sentences for each reason; `{…}` parts are filled in by {@link nextechFailureMessage}. */
export const NEXTECH_MESSAGES = {
  credentials:
    'Nextech did not accept this username and password. Check them in the e-mail Nextech sent with your API user and enter them again.',
  password_expired:
    "The password of this Nextech API user has expired (a new API user's password expires at its first sign-in). Reset it at Microsoft: sign in at portal.azure.com with the API user and follow the prompts, then enter the new password here.",
  account_blocked:
    'Microsoft has locked or disabled this Nextech API user. Ask Nextech support to unlock it, then try again.',
  mfa_required:
    'This Nextech API user must sign in with multi-factor authentication, which an integration cannot do. Ask Nextech for an API user without it.',
  client_id:
    'Nextech does not know this client ID. Copy it again from the e-mail Nextech sent with your API user.',
  practice_id:
    'Nextech does not know the practice ID "{practiceId}" for this API user. Check the practice ID Nextech gave you.',
  token_expired:
    'Nextech no longer accepts the sign-in Glow holds for this API user. Glow signs in again on its next call.',
  rate_limited:
    'Nextech is limiting requests from this API user right now. Try again in {seconds} seconds.',
  unreachable:
    'Nextech could not be reached. Try again in a few minutes; if it lasts, check Nextech’s status page.',
  unexpected: 'Nextech answered in a way Glow does not understand ({detail}). Try again later.',
  connected: 'Connected to Nextech: the API user signed in and read the practice’s patients.',
} as const

/** A failed call to Nextech, with its reason and the sentence for it. */
export class NextechFailure extends Error {
  override name = 'NextechFailure'
  readonly reason: NextechFailureReason
  /** Seconds Nextech asked us to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined

  constructor(
    reason: NextechFailureReason,
    message: string,
    options: { retryAfterSeconds?: number | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause })
    this.reason = reason
    this.retryAfterSeconds = options.retryAfterSeconds
  }
}

/** The sentence for `reason`, with its blanks filled. */
export function nextechFailureMessage(
  reason: NextechFailureReason,
  fill: { practiceId?: string; seconds?: number; detail?: string } = {},
): string {
  return NEXTECH_MESSAGES[reason]
    .replace('{practiceId}', fill.practiceId ?? '')
    .replace('{seconds}', String(fill.seconds ?? 60))
    .replace('{detail}', fill.detail ?? 'no detail')
}

/** Azure AD's numbers (AADSTS…) and what they mean for an Admin. */
const AADSTS_REASONS: ReadonlyMap<number, NextechFailureReason> = new Map([
  [50126, 'credentials'], // invalid username or password
  [50034, 'credentials'], // the user account does not exist in the directory
  [50055, 'password_expired'], // the password is expired
  [50144, 'password_expired'], // the Active Directory password is expired
  [50053, 'account_blocked'], // the account is locked
  [50057, 'account_blocked'], // the account is disabled
  [50076, 'mfa_required'], // multi-factor authentication required
  [50079, 'mfa_required'], // the user must enroll in multi-factor authentication
  [700016, 'client_id'], // application not found in the directory
  [90002, 'unreachable'], // tenant not found: Nextech's directory itself
])

/** Seconds of a `Retry-After` header (seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(
  header: string | null,
  now: Date = new Date(),
): number | undefined {
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds)
  const at = Date.parse(header)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000))
}

function rateLimited(retryAfter: number | undefined): NextechFailure {
  return new NextechFailure(
    'rate_limited',
    nextechFailureMessage('rate_limited', { seconds: retryAfter ?? 60 }),
    { retryAfterSeconds: retryAfter },
  )
}

/** The failure an answer of the token endpoint that is not a token means. */
export function tokenFailure(
  status: number,
  body: unknown,
  retryAfter: number | undefined,
): NextechFailure {
  if (status === 429) return rateLimited(retryAfter)
  if (status >= 500) return new NextechFailure('unreachable', nextechFailureMessage('unreachable'))
  const answer = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown
    error_codes?: unknown
  }
  const codes = Array.isArray(answer.error_codes)
    ? answer.error_codes.filter((code): code is number => typeof code === 'number')
    : []
  for (const code of codes) {
    const reason = AADSTS_REASONS.get(code)
    if (reason) return new NextechFailure(reason, nextechFailureMessage(reason))
  }
  // Azure AD's own kinds when no number is known to us.
  if (answer.error === 'invalid_client' || answer.error === 'unauthorized_client') {
    return new NextechFailure('client_id', nextechFailureMessage('client_id'))
  }
  const detail =
    codes.length > 0
      ? `AADSTS${codes.join(', AADSTS')}`
      : typeof answer.error === 'string'
        ? answer.error
        : `HTTP ${status}`
  return new NextechFailure('unexpected', nextechFailureMessage('unexpected', { detail }))
}

/**
 * The failure an answer of the FHIR API that is not what was asked means. 401 is the bearer token
 * (expired or revoked: sign in again); 403 or 404 with a good token means the practice ID is not
 * one of this API user's, since every request carries it in `nx-practice-id`.
 */
export function apiFailure(
  status: number,
  practiceId: string,
  retryAfter: number | undefined,
): NextechFailure {
  if (status === 429) return rateLimited(retryAfter)
  if (status >= 500) return new NextechFailure('unreachable', nextechFailureMessage('unreachable'))
  if (status === 401) {
    return new NextechFailure('token_expired', nextechFailureMessage('token_expired'))
  }
  if (status === 403 || status === 404) {
    return new NextechFailure('practice_id', nextechFailureMessage('practice_id', { practiceId }))
  }
  return new NextechFailure(
    'unexpected',
    nextechFailureMessage('unexpected', { detail: `HTTP ${status}` }),
  )
}

/** The failure a request that got no answer (refused, reset, timed out) means. */
export function networkFailure(error: unknown): NextechFailure {
  return new NextechFailure('unreachable', nextechFailureMessage('unreachable'), { cause: error })
}
