/**
 * The wallet's calls (../shared/MEMBERSHIPS.md sections 6 and 7, docs/decisions/027-patients-wallet.md):
 * the practice's name, asking for a sign-in code and trading it for a patient session (public,
 * rate-limited), then the patient's own things with that session. The staff token opens none of
 * the patient's calls, and the patient's token opens no staff call.
 */
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import { API_ERROR_NAMES } from '#domain/api-error.ts'
import {
  WALLET_MESSAGES,
  WalletActionAnswerSchema,
  WalletCardAnswerSchema,
  WalletCardInputSchema,
  WalletCodeAnswerSchema,
  WalletCodeInputSchema,
  WalletConsentInputSchema,
  WalletLogoutAnswerSchema,
  WalletMeSchema,
  WalletPauseInputSchema,
  WalletPracticeAnswerSchema,
  WalletSessionAnswerSchema,
  WalletSessionInputSchema,
} from '#domain/wallet.ts'
import type { ServerContext } from '#server/context.ts'
import { ApiError } from '#server/http/errors.ts'
import { idParams, jsonBody } from '#server/http/validate.ts'
import { DomainError } from '#server/lib/domain-error.ts'
import { operation, TOO_MANY } from '#server/openapi/operation.ts'
import { createWalletSignIn, walletPractice } from './codes.ts'
import { createWalletService } from './service.ts'
import { readPatientToken, type WalletEnv } from './sessions.ts'

const NO_PRACTICE = 'No practice has this id: the wallet link is not valid.'
const SIGNED_OUT =
  'No valid patient session: the token is missing, unknown, expired (30 minutes idle, 12 hours in all), signed out, or its patient was archived. `details.reason` is `signed_out`.'
const STAFF_TOKEN = 'A staff token: the wallet opens with a patient session only.'
const NO_MEMBERSHIP =
  'The patient has no membership that runs, or the plan’s rules refuse the change now; the message says why.'

const signedOut = () =>
  new ApiError(401, API_ERROR_NAMES.unauthorized, WALLET_MESSAGES.signedOut, {
    reason: 'signed_out',
  })

/**
 * The wallet's middleware: reads `Authorization: Bearer gwp_…` and sets the open patient session;
 * refuses (401) a missing, unknown, expired or revoked one and one whose patient was archived,
 * and a staff token with 403.
 */
export function requirePatient(ctx: Pick<ServerContext, 'db' | 'config' | 'now'>) {
  return createMiddleware<WalletEnv>(async (c, next) => {
    const header = c.req.header('Authorization') ?? ''
    const token = /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1]
    if (!token) throw signedOut()
    const found = await readPatientToken(ctx, token, ctx.now())
    if (found.kind === 'staff') {
      throw new ApiError(403, API_ERROR_NAMES.forbidden, WALLET_MESSAGES.staffToken)
    }
    if (found.kind !== 'patient') throw signedOut()
    c.set('patient', found.session)
    await next()
  })
}

/** A wrong code is the caller's missing credential: 401, as the contract says. */
async function wrongCodeIs401<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof DomainError && error.details.reason === 'wrong') {
      throw new ApiError(401, API_ERROR_NAMES.unauthorized, error.message, error.details)
    }
    throw error
  }
}

/** `/api/wallet`: the public sign-in calls and the patient's own calls. */
export function walletRoutes(ctx: ServerContext) {
  const signIn = createWalletSignIn(ctx)
  const wallet = createWalletService(ctx)
  const patient = requirePatient(ctx)

  const me = new Hono<WalletEnv>()
    .use(patient)
    .get(
      '/',
      operation({
        summary: "Read the patient's wallet",
        description:
          "The patient's own things in the session's practice: the practice's name and logo; the points, their worth and those that lapse within 60 days; the newest 50 history lines in words; the offers they may claim; the membership that runs (plan, status in words, next bill, perks left, bank, card, and what the plan's rules allow now); the session's end. Each call renews the session (30 minutes idle, 12 hours in all).",
        tag: 'Wallet',
        patient: true,
        responses: {
          200: { description: "The patient's wallet.", json: WalletMeSchema },
          401: SIGNED_OUT,
          403: STAFF_TOKEN,
        },
      }),
      async (c) => c.json(await wallet.me(c.var.patient)),
    )
    .post(
      '/offers/:promotionId/claim',
      operation({
        summary: 'Claim an offer from the wallet',
        description:
          'Claims one of the offers the wallet lists for the patient (the funnel’s claimed step, through the same rules as a claim at the desk). Claiming an offer already claimed answers the wallet again and adds nothing. Audited as the patient’s claim.',
        tag: 'Wallet',
        patient: true,
        responses: {
          200: {
            description: 'Claimed: the sentence and the wallet.',
            json: WalletActionAnswerSchema,
          },
          401: SIGNED_OUT,
          403: STAFF_TOKEN,
          404: 'The offer is not one the wallet lists for this patient (another practice’s, a draft, ended, or code-only and not sent to them).',
          409: 'The offer cannot be claimed now (its limit is reached, it just ended); the message says why.',
        },
      }),
      idParams('promotionId'),
      async (c) => {
        const { promotionId } = c.req.valid('param')
        return c.json(await wallet.claim(c.var.patient, promotionId, ctx.clientIp(c)))
      },
    )
    .put(
      '/consent',
      operation({
        summary: 'Change e-mail and SMS consent from the wallet',
        description:
          'Saves whether the patient wants the practice’s e-mails and text messages. Turning a channel on needs its contact on file. Audited when it changes something.',
        tag: 'Wallet',
        patient: true,
        responses: {
          200: {
            description: 'Saved: the sentence and the wallet.',
            json: WalletActionAnswerSchema,
          },
          401: SIGNED_OUT,
          403: STAFF_TOKEN,
          409: 'A channel turned on without its contact on file (no e-mail, no mobile number).',
        },
      }),
      jsonBody(WalletConsentInputSchema),
      async (c) =>
        c.json(await wallet.consent(c.var.patient, c.req.valid('json'), ctx.clientIp(c))),
    )
    .put(
      '/card',
      operation({
        summary: "Update the membership's card from the wallet",
        description:
          'Saves a new card (a payment method token) for the patient’s membership. A past-due or unpaid membership is charged at once for the cycle due; the same call again charges nothing more (one successful charge per membership and cycle). Audited.',
        tag: 'Wallet',
        patient: true,
        responses: {
          200: {
            description:
              'Saved (and charged when it was due): the sentence, whether this call charged, and the wallet.',
            json: WalletCardAnswerSchema,
          },
          401: SIGNED_OUT,
          402: 'The card is saved but the charge was declined; the message gives the card’s sentence.',
          403: STAFF_TOKEN,
          409: NO_MEMBERSHIP,
        },
      }),
      jsonBody(WalletCardInputSchema),
      async (c) =>
        c.json(
          await wallet.card(
            c.var.patient,
            c.req.valid('json').payment_method_token,
            ctx.clientIp(c),
          ),
        ),
    )
    .post(
      '/membership/cancel',
      operation({
        summary: 'Cancel the membership from the wallet',
        description:
          'Cancels online, within the plan’s rules: an active membership ends at the first cycle end its minimum term and notice period allow (the wallet shows that date beforehand in `cancel_effective_at`); a paused, past-due or unpaid one ends now once its minimum term is served. Refused with a sentence otherwise. The money in the bank stays the patient’s. Audited.',
        tag: 'Wallet',
        patient: true,
        responses: {
          200: {
            description: 'Cancelled: the sentence and the wallet.',
            json: WalletActionAnswerSchema,
          },
          401: SIGNED_OUT,
          403: STAFF_TOKEN,
          409: NO_MEMBERSHIP,
        },
      }),
      async (c) => c.json(await wallet.cancel(c.var.patient, ctx.clientIp(c))),
    )
    .post(
      '/membership/pause',
      operation({
        summary: 'Pause the membership from the wallet',
        description:
          'Pauses an active membership for 1 to 3 cycles from the end of the paid period: no charges and no perks until it resumes. Refused with a sentence when it is not active or is set to end. Audited.',
        tag: 'Wallet',
        patient: true,
        responses: {
          200: {
            description: 'Paused: the sentence and the wallet.',
            json: WalletActionAnswerSchema,
          },
          401: SIGNED_OUT,
          403: STAFF_TOKEN,
          409: NO_MEMBERSHIP,
        },
      }),
      jsonBody(WalletPauseInputSchema),
      async (c) =>
        c.json(await wallet.pause(c.var.patient, c.req.valid('json').cycles, ctx.clientIp(c))),
    )

  return new Hono<WalletEnv>()
    .route('/me', me)
    .post(
      '/logout',
      operation({
        summary: 'Sign out of the wallet',
        description:
          'Ends the patient session at once (its token answers 401 from now on). Audited.',
        tag: 'Wallet',
        patient: true,
        responses: {
          200: { description: 'Signed out.', json: WalletLogoutAnswerSchema },
          401: SIGNED_OUT,
          403: STAFF_TOKEN,
        },
      }),
      patient,
      async (c) => c.json(await wallet.logout(c.var.patient, ctx.clientIp(c))),
    )
    .get(
      '/:practiceId',
      operation({
        summary: "Read a wallet's practice",
        description: 'The practice’s name and logo, for the wallet’s sign-in page (public).',
        tag: 'Wallet',
        public: true,
        responses: {
          200: { description: 'The practice.', json: WalletPracticeAnswerSchema },
          404: NO_PRACTICE,
        },
      }),
      idParams('practiceId'),
      async (c) => {
        const { practiceId } = c.req.valid('param')
        c.header('Cache-Control', 'public, max-age=300')
        return c.json({ practice: await walletPractice(ctx.db, practiceId) })
      },
    )
    .post(
      '/:practiceId/code',
      operation({
        summary: 'Ask for a wallet sign-in code',
        description:
          'Sends a 6-digit code (10 minutes, single-use) to the e-mail or mobile phone typed, when it is a patient’s of the practice. Always 202 with the same body, whether the contact is known or not (nothing is looked up before the answer leaves). Rate-limited: 5 codes an hour per contact, 20 per 15 minutes per client address, known contact or not.',
        tag: 'Wallet',
        public: true,
        responses: {
          202: {
            description: 'Accepted (a code went out if the contact is a patient’s).',
            json: WalletCodeAnswerSchema,
          },
          404: NO_PRACTICE,
          429: TOO_MANY,
        },
      }),
      idParams('practiceId'),
      jsonBody(WalletCodeInputSchema),
      async (c) => {
        const { practiceId } = c.req.valid('param')
        const answer = await signIn.requestCode(
          practiceId,
          c.req.valid('json').contact,
          ctx.clientIp(c),
        )
        return c.json(answer, 202)
      },
    )
    .post(
      '/:practiceId/session',
      operation({
        summary: 'Open a wallet session with a code',
        description:
          'Trades the newest code sent to the contact in this practice for a patient session (`token`, sent as `Authorization: Bearer` to `/api/wallet/me…`). A wrong, spent or unknown code answers 401 alike, known contact or not; an expired one 410. The 5th wrong code for a contact within 15 minutes locks its sign-in for 15 minutes (429, `details.reason: locked`) and spends its codes; 30 wrong codes per 15 minutes from one address answer 429 too. Audited.',
        tag: 'Wallet',
        public: true,
        responses: {
          200: { description: 'A patient session.', json: WalletSessionAnswerSchema },
          401: 'The code is not right (`details.reason: wrong`): the same answer for an unknown contact.',
          404: NO_PRACTICE,
          410: 'The code has expired (`details.reason: expired`): ask for a new one.',
          429: 'Locked after too many wrong codes for this contact (`details.reason: locked`), or too many from this address (`rate_limited`); `details.retry_after_seconds` and `Retry-After` say when to try again.',
        },
      }),
      idParams('practiceId'),
      jsonBody(WalletSessionInputSchema),
      async (c) => {
        const { practiceId } = c.req.valid('param')
        const { contact, code } = c.req.valid('json')
        return c.json(
          await wrongCodeIs401(signIn.openSession(practiceId, contact, code, ctx.clientIp(c))),
        )
      },
    )
}
