/**
 * Test support for the security suites: whole journeys through the public API (sign-up with a
 * verified phone and a test card, personnel registration by invitation), written against a
 * `call` function so they run in process (`app.request`) and against a real server (`fetch`).
 * The SMS code is read from the development outbox, as a developer would.
 */
import * as v from 'valibot'
import { PlansAnswerSchema } from '#domain/plans.ts'
import type { Term } from '#domain/pricing.ts'
import type { SignUpPayloadInput } from '#domain/sign-up/api.ts'
import { ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import { buildSignUpPayload } from '#domain/sign-up/payload.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import { createSignUpSampleValues, sampleSignature } from '#domain/sign-up/sample-values.ts'

/** Sends one request to the app: a path under `/api` and fetch's options. */
export type ApiCall = (path: string, init?: RequestInit) => Promise<Response>

/** POSTs a JSON body (no XSRF cookie: a bearer-token client). */
export function postJson(call: ApiCall, path: string, body: unknown, token?: string) {
  return call(path, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  })
}

async function expectOk(response: Response, what: string): Promise<unknown> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`)
  return response.json()
}

/** The newest SMS code the outbox holds for `to` (`+1` and the phone's digits). */
export async function lastSmsCode(call: ApiCall, to: string): Promise<string> {
  const body = (await expectOk(await call('/api/dev/outbox'), 'outbox')) as {
    messages: { channel: string; to: string; code?: string | null }[]
  }
  const message = body.messages.find((m) => m.channel === 'sms' && m.to === to)
  if (!message?.code) throw new Error(`no SMS to ${to} in the outbox`)
  return message.code
}

/** Gets a code for `phone`, reads it from the outbox and verifies it; answers the `authyId`. */
export async function verifiedPhone(call: ApiCall, phone: string, email: string) {
  const sent = (await expectOk(
    await postJson(call, '/api/auth/get-code', { email, phone, countryCode: '+1' }),
    'get-code',
  )) as { authyId: string }
  const code = await lastSmsCode(call, `+1${phone}`)
  await expectOk(
    await postJson(call, '/api/auth/verify-code', { authyId: sent.authyId, phone, code }),
    'verify-code',
  )
  return sent.authyId
}

/** The billing details of every test payment: Jane Doe in Austin, TX. */
export const TEST_BILLING_INFORMATION = {
  name: 'Jane Doe',
  billing_address_1: '1 Main Street',
  billing_address_2: '',
  billing_city: 'Austin',
  billing_state: 'TX',
  billing_zip: '73301',
  country: 'US',
}

/** Tokenises the test card 4242… and pays for `email`; answers the customer id. */
export async function payWithTestCard(call: ApiCall, email: string): Promise<string> {
  const token = (await expectOk(
    await postJson(call, '/api/payments/test-tokens', {
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2035,
      cvc: '123',
      name: 'Jane Doe',
    }),
    'test token',
  )) as { id: string }
  const paid = (await expectOk(
    await postJson(call, '/api/auth/pay', {
      token: token.id,
      email,
      billingInformation: TEST_BILLING_INFORMATION,
    }),
    'pay',
  )) as { id: string }
  return paid.id
}

/** What a test sign-up may choose beyond its sample values: by default monthly, no EHR, no coupon. */
export type SignUpChoices = {
  term?: Term
  ehr?: boolean
  coupon?: string | null
  /** Practice fields over the sample's (a Nextech record, for instance). */
  practice?: Record<string, unknown>
  /** How the phone is verified, answering the `authyId`; by default {@link verifiedPhone}. */
  verifyPhone?: (phone: string, email: string) => Promise<string>
  /** How the practice e-mail pays, answering the customer id; by default {@link payWithTestCard}. */
  pay?: (email: string) => Promise<string>
}

/**
 * Everything a sign-up needs before its last call: a verified phone, a payment for the practice
 * e-mail, and the register payload the wizard would send. `seed` makes e-mails and phones unique.
 */
export async function readySignUp(
  call: ApiCall,
  seed: number,
  choices: SignUpChoices = {},
): Promise<SignUpPayloadInput> {
  const fixtures = createSignUpSampleValues(seed)
  const clientDetails = v.parse(ClientDetailsSchema, fixtures.clientDetails)
  const practice = v.parse(PracticeDetailsSchema, {
    ...fixtures.practiceDetails,
    ...choices.practice,
  })
  const verifyPhone = choices.verifyPhone ?? ((phone, email) => verifiedPhone(call, phone, email))
  const authyId = await verifyPhone(clientDetails.phone, clientDetails.email)
  const stripeId = await (choices.pay ?? ((email) => payWithTestCard(call, email)))(
    practice.practice_email,
  )
  const plans = v.parse(
    PlansAnswerSchema,
    await expectOk(await call('/api/practice/plans'), 'plans'),
  ).plans.data
  return buildSignUpPayload({
    clientDetails,
    authyId,
    practice,
    billingAddress: {
      billing_address_1: '1 Main Street',
      billing_address_2: '',
      billing_city: 'Austin',
      billing_state: 'TX',
      billing_zip: '73301',
    },
    plans,
    term: choices.term ?? 'month',
    ehr: choices.ehr ?? false,
    coupon: choices.coupon ?? null,
    stripeId,
    signature: sampleSignature(),
  })
}

/** A valid `PUT /practice` body for a practice in Austin, Texas. */
export const TEXAS_PRACTICE_DETAILS = {
  practice_name: 'Glow Austin',
  office_name: 'Downtown',
  url: 'https://glowaustin.example.com',
  practice_phone: '5125550100',
  practice_email: 'front@glowaustin.example.com',
  practice_address: '100 Congress Ave',
  practice_address_2: '',
  city: 'Austin',
  practice_zip: '78701',
  state: 'TX',
  country: 'US',
  e_record: 'no_integration',
  nextech: null,
  footer_links: { about: '', privacy: '', support: '' },
}

/** Signs in through the API; answers the session (`{jwt, user, practice}`). */
export async function signIn(call: ApiCall, identifier: string, password: string) {
  return (await expectOk(
    await postJson(call, '/api/auth/local', { identifier, password }),
    'sign-in',
  )) as { jwt: string; user: { id: number; practice_id: number }; practice: { id: number } }
}
