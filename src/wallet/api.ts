import ky, { HTTPError, TimeoutError } from 'ky'
import * as v from 'valibot'
import { ApiErrorBodySchema } from '#domain/api-error.ts'
import {
  type WalletActionAnswer,
  WalletActionAnswerSchema,
  type WalletCardAnswer,
  WalletCardAnswerSchema,
  type WalletConsentInput,
  type WalletMe,
  WalletMeSchema,
} from '#domain/wallet.ts'

/**
 * The wallet's own calls (`/api/wallet/me…`, domain/wallet.ts), with the patient session as a
 * bearer token: not the staff app's client (src/lib/http.ts), which carries a staff session.
 */

/** The header the service worker (public/wallet/sw.js) adds to a `/me` answer it kept. */
export const CACHED_AT_HEADER = 'X-Wallet-Cached-At'

/** Shown when the call never reached the server (offline, or the server is down). */
export const WALLET_OFFLINE_MESSAGE =
  'We could not reach your practice. Please check your connection and try again.'
/** Shown when the server's answer was not one we understand. */
export const WALLET_FAILED_MESSAGE = 'Something went wrong. Please try again.'

/** A 401: the session expired or was ended (logout, the practice archived the patient). */
export class WalletSignedOutError extends Error {
  override readonly name = 'WalletSignedOutError'
}

/** A refusal or failure, with the sentence to show the patient. */
export class WalletCallError extends Error {
  override readonly name = 'WalletCallError'
}

/** `/me`'s answer, and when the service worker kept it if it came from there (offline). */
export type LoadedWallet = { wallet: WalletMe; cachedAt: string | null }

/** The card as the test gateway's form collects it. */
export type WalletCardFields = {
  number: string
  exp_month: string
  exp_year: string
  cvv: string
  name: string
}

/** Everything the signed-in wallet does: the real calls, or a test's fakes. */
export type WalletCalls = {
  me(): Promise<LoadedWallet>
  claim(promotionId: number): Promise<WalletActionAnswer>
  consent(input: WalletConsentInput): Promise<WalletActionAnswer>
  /**
   * Puts the card of a one-time token on file; a past-due membership is charged at once (the
   * same token twice charges at most once).
   */
  updateCard(paymentMethodToken: string): Promise<WalletCardAnswer>
  pause(cycles: number): Promise<WalletActionAnswer>
  cancel(): Promise<WalletActionAnswer>
  logout(): Promise<void>
}

/** An address under /api/ of this page's server (absolute: ky and fetch outside browsers need it). */
function apiUrl(path: string): string {
  return new URL(`/api/${path}`, window.location.origin).href
}

function xsrfToken(): string | undefined {
  const found = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(document.cookie)?.[1]
  return found ? decodeURIComponent(found) : undefined
}

/** The sentence of a failed call: the API's own message, else one for the connection. */
export async function walletErrorOf(error: unknown): Promise<Error> {
  if (error instanceof WalletSignedOutError || error instanceof WalletCallError) return error
  if (error instanceof HTTPError) {
    const body = await error.response
      .clone()
      .json()
      .catch(() => undefined)
    const parsed = v.safeParse(ApiErrorBodySchema, body)
    if (error.response.status === 401) {
      return new WalletSignedOutError(parsed.success ? parsed.output.error.message : '')
    }
    if (parsed.success) return new WalletCallError(parsed.output.error.message)
    if (error.response.status === 503) return new WalletCallError(WALLET_OFFLINE_MESSAGE)
    return new WalletCallError(WALLET_FAILED_MESSAGE)
  }
  if (error instanceof TimeoutError || error instanceof TypeError) {
    return new WalletCallError(WALLET_OFFLINE_MESSAGE)
  }
  if (error instanceof v.ValiError) return new WalletCallError(WALLET_FAILED_MESSAGE)
  return new WalletCallError(WALLET_FAILED_MESSAGE)
}

async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw await walletErrorOf(error)
  }
}

const TokenSchema = v.object({ id: v.pipe(v.string(), v.startsWith('tok_')) })

/**
 * The test gateway's one-time token for `card` (`POST /api/payments/test-tokens`, public, only
 * while payments run in test mode): the card goes to the server's tokeniser, never to our calls.
 */
export function testCardToken(card: WalletCardFields): Promise<string> {
  return call(async () => {
    const answer = await ky
      .post(apiUrl('payments/test-tokens'), {
        timeout: 20_000,
        retry: 0,
        json: {
          number: card.number.replace(/\s/g, ''),
          exp_month: card.exp_month,
          exp_year: card.exp_year,
          cvc: card.cvv,
          name: card.name.trim(),
        },
        hooks: { beforeRequest: [withXsrf] },
      })
      .json()
    return v.parse(TokenSchema, answer).id
  })
}

function withXsrf(request: Request) {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const xsrf = xsrfToken()
    if (xsrf) request.headers.set('X-XSRF-TOKEN', xsrf)
  }
}

/**
 * The real calls with the patient session `token`. Each answer that carries the session's new end
 * hands it to `onRenewed` (the session slides with every call).
 */
export function walletCalls(
  token: string,
  onRenewed: (expiresAt: string) => void = () => {},
): WalletCalls {
  const api = ky.create({
    prefixUrl: apiUrl(''),
    timeout: 20_000,
    retry: 0,
    headers: { Authorization: `Bearer ${token}` },
    hooks: { beforeRequest: [withXsrf] },
  })
  const action = async (promise: Promise<unknown>) => {
    const answer = v.parse(WalletActionAnswerSchema, await promise)
    onRenewed(answer.wallet.session.expires_at)
    return answer
  }
  return {
    me: () =>
      call(async () => {
        const response = await api.get('wallet/me')
        const wallet = v.parse(WalletMeSchema, await response.json())
        const cachedAt = response.headers.get(CACHED_AT_HEADER)
        if (!cachedAt) onRenewed(wallet.session.expires_at)
        return { wallet, cachedAt }
      }),
    claim: (promotionId) =>
      call(() => action(api.post(`wallet/me/offers/${promotionId}/claim`).json())),
    consent: (input) => call(() => action(api.put('wallet/me/consent', { json: input }).json())),
    updateCard: (paymentMethodToken) =>
      call(async () => {
        const answer = v.parse(
          WalletCardAnswerSchema,
          await api
            .put('wallet/me/card', { json: { payment_method_token: paymentMethodToken } })
            .json(),
        )
        onRenewed(answer.wallet.session.expires_at)
        return answer
      }),
    pause: (cycles) =>
      call(() => action(api.post('wallet/me/membership/pause', { json: { cycles } }).json())),
    cancel: () => call(() => action(api.post('wallet/me/membership/cancel', { json: {} }).json())),
    logout: () =>
      call(async () => {
        await api.post('wallet/logout')
      }),
  }
}

/** Forgets the last `/me` answer the service worker kept for offline reading (logout, 401). */
export async function forgetCachedWallet(): Promise<void> {
  try {
    if ('caches' in window) await caches.delete(WALLET_DATA_CACHE)
  } catch {
    // No cache storage (private mode): nothing was kept.
  }
}

/** The cache the service worker keeps the last `/me` answer in (public/wallet/sw.js). */
export const WALLET_DATA_CACHE = 'glow-wallet-data-v1'
