import type { APIRequestContext } from '@playwright/test'
import * as v from 'valibot'
import { PlansAnswerSchema } from '#domain/plans.ts'
import { ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import { buildPayBillingInformation, buildSignUpPayload } from '#domain/sign-up/payload.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import {
  createSignUpSampleValues,
  nanpTestPhone,
  SAMPLE_BILLING_ADDRESS,
  sampleSignature,
} from '#domain/sign-up/sample-values.ts'
import { type ApiSession, apiSignIn, expect, waitForMessage } from './fixtures.ts'

/** Codes the server limits per phone: every run and every person gets a phone of their own. */
const stamp = `${Date.now()}`.slice(-7)

/**
 * A new practice signed up through the API as the wizard does (monthly Lite with WELCOME10), and
 * its Admin's session.
 */
export async function signUpPractice(
  request: APIRequestContext,
  practiceName: string,
): Promise<ApiSession & { password: string }> {
  const values = createSignUpSampleValues(Date.now() % 10_000_000)
  const client = v.parse(ClientDetailsSchema, values.clientDetails)
  const practice = v.parse(PracticeDetailsSchema, {
    ...values.practiceDetails,
    practice_name: practiceName,
  })
  const codeAt = new Date(Date.now() - 1000)
  const code = await request.post('/api/auth/get-code', {
    data: { email: client.email, phone: client.phone, countryCode: '+1' },
  })
  expect(code.status(), await code.text()).toBe(200)
  const { authyId } = (await code.json()) as { authyId: string }
  const sms = await waitForMessage(request, 'sms', `+1${client.phone}`, { after: codeAt })
  const verified = await request.post('/api/auth/verify-code', {
    data: { authyId, phone: client.phone, code: sms.code },
  })
  expect(verified.status(), await verified.text()).toBe(200)
  const token = await request.post('/api/payments/test-tokens', {
    data: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
  })
  expect(token.status(), await token.text()).toBe(200)
  const paid = await request.post('/api/auth/pay', {
    data: {
      token: ((await token.json()) as { id: string }).id,
      email: practice.practice_email,
      billingInformation: buildPayBillingInformation('Jane Doe', SAMPLE_BILLING_ADDRESS, 'US'),
    },
  })
  expect(paid.status(), await paid.text()).toBe(200)
  const plans = v.parse(PlansAnswerSchema, await (await request.get('/api/practice/plans')).json())
  const registered = await request.post('/api/auth/local/register', {
    data: buildSignUpPayload({
      clientDetails: client,
      authyId,
      practice,
      billingAddress: SAMPLE_BILLING_ADDRESS,
      plans: plans.plans.data,
      term: 'month',
      ehr: false,
      coupon: 'WELCOME10',
      stripeId: ((await paid.json()) as { id: string }).id,
      signature: sampleSignature(),
    }),
  })
  expect(registered.status(), await registered.text()).toBe(200)
  const session = await apiSignIn(request, client.email, client.password)
  return { ...session, password: client.password }
}

export type Colleague = {
  id: number
  email: string
  password: string
  first: string
  last: string
}

/** An Admin invites a Staff colleague, who registers through the API with a verified phone. */
export async function registerColleague(
  request: APIRequestContext,
  jwt: string,
  n: number,
  first: string,
  last: string,
): Promise<Colleague> {
  const email = `${first.toLowerCase()}.${stamp}${n}@example.com`
  const password = 'Harbor-Lantern-42'
  const sentAt = new Date(Date.now() - 1000)
  const invited = await request.post('/api/personnel', {
    headers: { Authorization: `Bearer ${jwt}` },
    data: { email, first_name: first, last_name: last, position: 'Staff', title: null },
  })
  expect(invited.status(), await invited.text()).toBe(201)
  const mail = await waitForMessage(request, 'email', email, { after: sentAt })
  const id = (mail.link ?? '').split('/').at(-1) ?? ''
  const phone = nanpTestPhone(`57${n}${stamp}`.slice(0, 10).padEnd(10, '0'))
  const codeAt = new Date(Date.now() - 1000)
  const code = await request.post('/api/auth/get-code', {
    data: { email, phone, countryCode: '+1' },
  })
  expect(code.status(), await code.text()).toBe(200)
  const { authyId } = (await code.json()) as { authyId: string }
  const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: codeAt })
  const verified = await request.post('/api/auth/verify-code', {
    data: { authyId, phone, code: sms.code },
  })
  expect(verified.status(), await verified.text()).toBe(200)
  const registered = await request.post('/api/auth/personnel/register', {
    data: {
      id,
      title: '',
      first_name: first,
      last_name: last,
      cell_phone: phone,
      password,
      password_confirm: password,
      authyId,
    },
  })
  expect(registered.status(), await registered.text()).toBe(200)
  const { user } = (await registered.json()) as { user: { id: number } }
  return { id: user.id, email, password, first, last }
}

/**
 * The headers of a write as `session`: its token, and the XSRF cookie echoed as the SPA does
 * when the journey fetched one of our pages (and so holds that cookie).
 */
async function writeHeaders(request: APIRequestContext, session: ApiSession) {
  const { cookies } = await request.storageState()
  const xsrf = cookies.find((cookie) => cookie.name === 'XSRF-TOKEN')?.value
  return {
    Authorization: `Bearer ${session.jwt}`,
    ...(xsrf ? { 'X-XSRF-TOKEN': xsrf } : {}),
  }
}

/** Puts the programme rules back to `rules` as the practice's Admin (`admin`). */
export async function putRules(
  request: APIRequestContext,
  admin: ApiSession,
  rules: Record<string, unknown>,
): Promise<void> {
  const saved = await request.put('/api/practice/rules', {
    headers: await writeHeaders(request, admin),
    data: rules,
  })
  expect(saved.status(), await saved.text()).toBe(200)
}

/**
 * Changes the practice's details through the API as its Admin (`admin`), keeping every other
 * field as stored: how a journey puts back what it changed.
 */
export async function putPractice(
  request: APIRequestContext,
  admin: ApiSession,
  changes: Record<string, unknown>,
): Promise<void> {
  const headers = await writeHeaders(request, admin)
  const current = (await (await request.get('/api/practice', { headers })).json()) as Record<
    string,
    unknown
  >
  const saved = await request.put('/api/practice', { headers, data: { ...current, ...changes } })
  expect(saved.status(), await saved.text()).toBe(200)
}
