/// <reference types="fhir" />
import { randomBytes } from 'node:crypto'
import { Hono } from 'hono'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import { NEXTECH_RESOURCE } from './client.ts'

/**
 * The Nextech sandbox: a small stand-in for Nextech's sign-in (Azure AD's token endpoint) and
 * FHIR STU3 API, served outside production under `/nextech-sandbox` and used by the tests, as
 * the test payment gateway stands in for Stripe. It behaves as Nextech documents
 * (NextechSystems/selectapidocspub, "Getting started", "Patient"): the password and refresh
 * grants with Azure AD's error answers (`error`, `error_description`, `error_codes` with AADSTS
 * numbers, `expires_in` as a string of seconds), tokens for 1 hour and refresh tokens for 14
 * days, `nx-practice-id` on every API call, Bundles of 10 (at most 50 with `_count`) with `next`
 * links, `_lastUpdated=ge…`, and 20 requests a second per endpoint per user, then 429 with
 * `Retry-After`. Nextech does not document its answer to a practice ID the user may not use; the
 * sandbox answers 403 with an OperationOutcome.
 */

/** The sandbox's API users and practice. */
export const NEXTECH_SANDBOX = {
  clientId: NEXTECH_SANDBOX_LOGIN.client_id,
  username: NEXTECH_SANDBOX_LOGIN.username,
  password: NEXTECH_SANDBOX_LOGIN.password,
  practiceId: NEXTECH_SANDBOX_LOGIN.nx_practice_id,
  /** An API user never signed in: its first password has expired, as Nextech's new users' do. */
  newUser: { username: 'new.api@demo-clinic.nextech-api.com', password: 'Welcome123!' },
  /** Where the sandbox is mounted on a server outside production. */
  mountPath: '/nextech-sandbox',
} as const

/** Requests a second per endpoint per user before 429 (Nextech's documented default). */
export const SANDBOX_RATE_LIMIT = 20

const ACCESS_SECONDS = 3600
const REFRESH_SECONDS = 14 * 24 * 3600
const NEXTECH_EXTENSION = 'https://select.nextech-api.com/api/structuredefinition/'

type SandboxUser = { password: string; clientId: string; practices: string[]; expired?: boolean }

type Grant = { username: string; expiresAt: number }

/** A sandbox patient: what the sandbox answers as a FHIR Patient. */
export type SandboxPatient = {
  id: string
  family: string
  given: string
  phone?: string
  email?: string
  birthDate?: string
  excludeFromMailings?: boolean
  lastUpdated: string
}

/** The demo practice's patients in Nextech (the demo practice in Glow has the same people). */
export const SANDBOX_PATIENTS: readonly SandboxPatient[] = [
  {
    id: '20001',
    family: 'Rivera',
    given: 'Ana',
    phone: '(512) 555-0142',
    email: 'ana.rivera@example.com',
    birthDate: '1988-04-12',
    lastUpdated: '2026-11-01T15:00:00+00:00',
  },
  {
    id: '20002',
    family: 'Chen',
    given: 'Grace',
    phone: '(512) 555-0177',
    birthDate: '1979-09-30',
    lastUpdated: '2026-11-02T09:30:00+00:00',
  },
  {
    id: '20003',
    family: 'Okafor',
    given: 'Daniel',
    email: 'daniel.okafor@example.com',
    excludeFromMailings: true,
    lastUpdated: '2026-11-03T11:15:00+00:00',
  },
]

/** The FHIR Patient Nextech answers for `patient`. */
export function sandboxPatientResource(patient: SandboxPatient): fhir.Patient {
  const telecom: fhir.ContactPoint[] = []
  if (patient.phone) telecom.push({ system: 'phone', value: patient.phone, use: 'mobile' })
  if (patient.email) telecom.push({ system: 'email', value: patient.email })
  return {
    resourceType: 'Patient',
    id: patient.id,
    meta: { lastUpdated: patient.lastUpdated },
    identifier: [{ use: 'usual', value: patient.id }],
    name: [{ use: 'official', family: patient.family, given: [patient.given] }],
    ...(telecom.length > 0 ? { telecom } : {}),
    ...(patient.birthDate ? { birthDate: patient.birthDate } : {}),
    extension: [
      { url: `${NEXTECH_EXTENSION}patient-status`, valueString: 'patient' },
      {
        url: `${NEXTECH_EXTENSION}exclude-from-mailings`,
        valueBoolean: patient.excludeFromMailings ?? false,
      },
    ],
  }
}

/** Azure AD's error answer: 400 with its fields, the description starting with the number. */
function aadError(error: string, code: number, text: string) {
  const timestamp = new Date().toISOString().replace('T', ' ').slice(0, 19)
  const trace = randomBytes(16).toString('hex')
  return {
    error,
    error_description: `AADSTS${code}: ${text}\r\nTrace ID: ${trace}\r\nTimestamp: ${timestamp}Z`,
    error_codes: [code],
    timestamp: `${timestamp}Z`,
    trace_id: trace,
    correlation_id: randomBytes(16).toString('hex'),
    error_uri: `https://login.microsoftonline.com/error?code=${code}`,
  }
}

function outcome(code: string, text: string): fhir.OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'error', code, diagnostics: text }],
  }
}

/** Options of {@link createNextechSandbox}. */
export type NextechSandboxOptions = {
  now?: () => Date
  patients?: readonly SandboxPatient[]
}

/** The sandbox's Hono app and an in-process `fetch` that reaches it by its full addresses. */
export function createNextechSandbox({
  now = () => new Date(),
  patients = SANDBOX_PATIENTS,
}: NextechSandboxOptions = {}) {
  const users = new Map<string, SandboxUser>([
    [
      NEXTECH_SANDBOX.username,
      {
        password: NEXTECH_SANDBOX.password,
        clientId: NEXTECH_SANDBOX.clientId,
        practices: [NEXTECH_SANDBOX.practiceId],
      },
    ],
    [
      NEXTECH_SANDBOX.newUser.username,
      {
        password: NEXTECH_SANDBOX.newUser.password,
        clientId: NEXTECH_SANDBOX.clientId,
        practices: [NEXTECH_SANDBOX.practiceId],
        expired: true,
      },
    ],
  ])
  const accessTokens = new Map<string, Grant>()
  const refreshTokens = new Map<string, Grant>()
  /** Request times (ms) in the last second, per user and endpoint. */
  const recent = new Map<string, number[]>()
  /** Requests answered per endpoint (429s included): what a test or the bench counts. */
  const requests = new Map<string, number>()

  const issue = (username: string) => {
    const at = now().getTime()
    const access = randomBytes(24).toString('base64url')
    const refresh = randomBytes(32).toString('base64url')
    accessTokens.set(access, { username, expiresAt: at + ACCESS_SECONDS * 1000 })
    refreshTokens.set(refresh, { username, expiresAt: at + REFRESH_SECONDS * 1000 })
    return {
      token_type: 'Bearer',
      scope: 'user_impersonation',
      expires_in: String(ACCESS_SECONDS - 1),
      ext_expires_in: String(ACCESS_SECONDS - 1),
      expires_on: String(Math.floor(at / 1000) + ACCESS_SECONDS - 1),
      not_before: String(Math.floor(at / 1000) - 300),
      resource: NEXTECH_RESOURCE,
      access_token: access,
      refresh_token: refresh,
    }
  }

  /** False (and the request counted) when `username` passed 20 requests a second on `endpoint`. */
  const withinLimit = (username: string, endpoint: string) => {
    const key = `${username} ${endpoint}`
    const at = now().getTime()
    const times = (recent.get(key) ?? []).filter((time) => time > at - 1000)
    if (times.length >= SANDBOX_RATE_LIMIT) {
      recent.set(key, times)
      return false
    }
    times.push(at)
    recent.set(key, times)
    return true
  }

  const app = new Hono()
    .post('/nextech-api.com/oauth2/token', async (c) => {
      requests.set('token', (requests.get('token') ?? 0) + 1)
      const form = new URLSearchParams(await c.req.text())
      const clientId = form.get('client_id') ?? ''
      if (form.get('resource') !== NEXTECH_RESOURCE) {
        return c.json(
          aadError(
            'invalid_resource',
            500011,
            `The resource principal named ${form.get('resource') ?? ''} was not found in the tenant named nextech-api.com.`,
          ),
          400,
        )
      }
      if (![...users.values()].some((user) => user.clientId === clientId)) {
        return c.json(
          aadError(
            'unauthorized_client',
            700016,
            `Application with identifier '${clientId}' was not found in the directory 'nextech-api.com'.`,
          ),
          400,
        )
      }
      const grantType = form.get('grant_type')
      if (grantType === 'password') {
        const username = (form.get('username') ?? '').toLowerCase()
        const user = users.get(username)
        if (!user) {
          return c.json(
            aadError(
              'invalid_grant',
              50034,
              `The user account ${username} does not exist in the nextech-api.com directory.`,
            ),
            400,
          )
        }
        if (user.password !== form.get('password')) {
          return c.json(
            aadError(
              'invalid_grant',
              50126,
              'Error validating credentials due to invalid username or password.',
            ),
            400,
          )
        }
        if (user.expired) {
          return c.json(aadError('invalid_grant', 50055, 'The password is expired.'), 400)
        }
        return c.json(issue(username))
      }
      if (grantType === 'refresh_token') {
        const grant = refreshTokens.get(form.get('refresh_token') ?? '')
        if (!grant || grant.expiresAt <= now().getTime()) {
          return c.json(
            aadError('invalid_grant', 700082, 'The refresh token has expired due to inactivity.'),
            400,
          )
        }
        refreshTokens.delete(form.get('refresh_token') ?? '')
        return c.json(issue(grant.username))
      }
      return c.json(
        aadError(
          'unsupported_grant_type',
          70003,
          `The app requested an unsupported grant type '${grantType ?? ''}'.`,
        ),
        400,
      )
    })
    .get('/api/:resource', (c) => {
      const resource = c.req.param('resource')
      requests.set(resource, (requests.get(resource) ?? 0) + 1)
      const token = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? ''
      const grant = accessTokens.get(token)
      if (!grant || grant.expiresAt <= now().getTime()) {
        c.header('WWW-Authenticate', 'Bearer error="invalid_token"')
        return c.json(outcome('login', 'The access token is missing, invalid or expired.'), 401)
      }
      if (!withinLimit(grant.username, resource)) {
        c.header('Retry-After', '1')
        return c.json(outcome('throttled', 'Too Many Requests'), 429)
      }
      const practiceId = c.req.header('nx-practice-id') ?? ''
      if (!users.get(grant.username)?.practices.includes(practiceId)) {
        return c.json(
          outcome('forbidden', `The user may not access practice '${practiceId}'.`),
          403,
        )
      }
      if (resource !== 'Patient') {
        return c.json(outcome('not-supported', `The sandbox does not serve ${resource} yet.`), 404)
      }
      const count = Math.min(50, Math.max(1, Number(c.req.query('_count') ?? 10) || 10))
      const page = Math.max(1, Number(c.req.query('page') ?? 1) || 1)
      const since = /^ge(.+)$/.exec(c.req.query('_lastUpdated') ?? '')?.[1]
      const sinceMs = since ? Date.parse(since) : Number.NEGATIVE_INFINITY
      const matching = [...patients]
        .filter((patient) => Date.parse(patient.lastUpdated) >= sinceMs)
        .sort(
          (a, b) =>
            Date.parse(a.lastUpdated) - Date.parse(b.lastUpdated) || a.id.localeCompare(b.id),
        )
      const base = new URL(c.req.url)
      const link = (relation: string, pageNumber: number): fhir.BundleLink => {
        const url = new URL(base)
        url.searchParams.set('page', String(pageNumber))
        return { relation, url: url.toString() }
      }
      const last = Math.max(1, Math.ceil(matching.length / count))
      const bundle: fhir.Bundle = {
        resourceType: 'Bundle',
        type: 'searchset',
        total: matching.length,
        link: [
          link('self', page),
          link('first', 1),
          ...(page > 1 ? [link('previous', page - 1)] : []),
          ...(page < last ? [link('next', page + 1)] : []),
          link('last', last),
        ],
        entry: matching.slice((page - 1) * count, page * count).map((patient) => ({
          fullUrl: `${base.origin}${base.pathname}/${patient.id}`,
          resource: sandboxPatientResource(patient),
        })),
      }
      return c.json(bundle)
    })

  /**
   * `fetch` for the sandbox's full addresses (`http://host/nextech-sandbox/…`), answered in
   * this process: what a server outside production uses when no Nextech address is configured.
   */
  const fetchSandbox = (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input)
    const path = url.pathname.replace(new RegExp(`^${NEXTECH_SANDBOX.mountPath}`), '')
    return Promise.resolve(app.request(`${path}${url.search}`, init))
  }

  return { app, fetch: fetchSandbox, requests }
}

/** A running sandbox: its app, its in-process fetch and its request counts. */
export type NextechSandbox = ReturnType<typeof createNextechSandbox>
