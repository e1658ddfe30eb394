/// <reference types="fhir" />
import {
  apiFailure,
  NextechFailure,
  networkFailure,
  nextechFailureMessage,
  retryAfterSeconds,
  tokenFailure,
} from './failures.ts'

/** Nextech's production addresses (its public API documentation, "Getting started"). */
export const NEXTECH_PRODUCTION = {
  tokenUrl: 'https://login.microsoftonline.com/nextech-api.com/oauth2/token',
  apiUrl: 'https://select.nextech-api.com/api',
} as const

/** The `resource` every token is asked for: Nextech's API. */
export const NEXTECH_RESOURCE = 'https://select.nextech-api.com/api'

/** The four values of the specification's Nextech fields. */
export type NextechCredentials = {
  client_id: string
  username: string
  password: string
  nx_practice_id: string
}

/** A token pair as Glow keeps it (sealed at rest). */
export type NextechTokens = {
  access_token: string
  refresh_token: string
  /** When the access token stops working (ISO instant). */
  expires_at: string
}

/** Where a client talks to, and with what. */
export type NextechEndpoints = {
  tokenUrl: string
  apiUrl: string
  /** `fetch`, or the sandbox's in-process one. */
  fetch: (input: string, init: RequestInit) => Promise<Response>
  /** A request with no answer after this long counts as Nextech unreachable. Default 20 s. */
  timeoutMs?: number
}

/** The FHIR resources Glow reads. */
export type NextechResource = 'Patient' | 'Appointment' | 'Claim'

/** A client of Nextech's API for one set of endpoints. */
export type NextechClient = {
  /** The password grant: a token pair for the API user. */
  signIn(credentials: NextechCredentials): Promise<NextechTokens>
  /** The refresh grant: a new pair from the refresh token (both are renewed). */
  refresh(credentials: NextechCredentials, refreshToken: string): Promise<NextechTokens>
  /**
   * One page of a search (`GET /{resource}?…`), or the page a `next` link names. Every request
   * carries the bearer token and `nx-practice-id`.
   */
  search(
    tokens: Pick<NextechTokens, 'access_token'>,
    practiceId: string,
    page: { resource: NextechResource; params?: Record<string, string> } | { next: string },
  ): Promise<fhir.Bundle>
}

/** Azure AD v1 writes `expires_in` as a string of seconds ("3599"); v2 as a number. */
function seconds(value: unknown, fallback: number): number {
  const number = typeof value === 'string' ? Number(value) : value
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : fallback
}

/** Creates a {@link NextechClient}; `now` dates the tokens' expiry. */
export function createNextechClient(
  endpoints: NextechEndpoints,
  now: () => Date = () => new Date(),
): NextechClient {
  const timeoutMs = endpoints.timeoutMs ?? 20_000

  async function send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await endpoints.fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    } catch (error) {
      throw networkFailure(error)
    }
  }

  async function readJson(response: Response): Promise<unknown> {
    try {
      return await response.json()
    } catch {
      return undefined
    }
  }

  async function grant(form: Record<string, string>): Promise<NextechTokens> {
    const response = await send(endpoints.tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ ...form, resource: NEXTECH_RESOURCE }).toString(),
    })
    const body = await readJson(response)
    if (!response.ok) {
      throw tokenFailure(
        response.status,
        body,
        retryAfterSeconds(response.headers.get('retry-after'), now()),
      )
    }
    const answer = (body ?? {}) as Record<string, unknown>
    if (typeof answer.access_token !== 'string' || typeof answer.refresh_token !== 'string') {
      throw tokenFailure(response.status, { error: 'no token in the answer' }, undefined)
    }
    const lifetime = seconds(answer.expires_in, 3600)
    return {
      access_token: answer.access_token,
      refresh_token: answer.refresh_token,
      expires_at: new Date(now().getTime() + lifetime * 1000).toISOString(),
    }
  }

  return {
    signIn: (credentials) =>
      grant({
        grant_type: 'password',
        client_id: credentials.client_id,
        username: credentials.username,
        password: credentials.password,
      }),
    refresh: (credentials, refreshToken) =>
      grant({
        grant_type: 'refresh_token',
        client_id: credentials.client_id,
        refresh_token: refreshToken,
      }),
    async search(tokens, practiceId, page) {
      const url =
        'next' in page
          ? page.next
          : `${endpoints.apiUrl.replace(/\/$/, '')}/${page.resource}?${new URLSearchParams(page.params ?? {})}`
      const response = await send(url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          'nx-practice-id': practiceId,
          accept: 'application/fhir+json, application/json',
        },
      })
      if (!response.ok) {
        throw apiFailure(
          response.status,
          practiceId,
          retryAfterSeconds(response.headers.get('retry-after'), now()),
        )
      }
      const bundle = (await readJson(response)) as fhir.Bundle | undefined
      if (bundle?.resourceType !== 'Bundle') {
        throw new NextechFailure(
          'unexpected',
          nextechFailureMessage('unexpected', { detail: 'not a FHIR Bundle' }),
        )
      }
      return bundle
    },
  }
}
