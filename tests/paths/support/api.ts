/**
 * The real server's API, used by the replay to set up what a path starts from (a verified phone,
 * a payment, an invitation, a reset link) the way the screens would have done it, only faster.
 */
import { type APIRequestContext, expect } from '@playwright/test'
import * as v from 'valibot'
import { type PlansAnswer, PlansAnswerSchema } from '#domain/plans.ts'
import { BillingInformationSchema } from '#domain/sign-up/billing-information.ts'
import { ClientDetailsSchema } from '#domain/sign-up/client-details.ts'
import { buildPayBillingInformation, buildSignUpPayload } from '#domain/sign-up/payload.ts'
import { PracticeDetailsSchema } from '#domain/sign-up/practice-details.ts'
import { parseStoredSignUp, type StoredSignUp } from '#domain/sign-up/progress.ts'
import {
  createSignUpSampleValues,
  nanpTestPhone,
  type SignUpSampleValues,
  sampleSignature,
} from '#domain/sign-up/sample-values.ts'
import { apiSignIn, waitForMessage } from '#tests/e2e/support/fixtures.ts'

/** A number unique to this run, so that every path gets its own e-mails and phones. */
const RUN = Date.now() % 100_000

/**
 * Sign-up values of their own for one path: `createSignUpSampleValues` with a seed made of the run
 * and `slot`, so no two paths share an e-mail or a phone.
 */
export function valuesFor(slot: number): SignUpSampleValues {
  return createSignUpSampleValues(RUN * 100 + slot)
}

/** A 10-digit phone of its own for `slot` with a prefix (the personnel paths use their own). */
export function phoneFor(prefix: '556' | '557', slot: number): string {
  return nanpTestPhone(`${prefix}${String((RUN * 100 + slot) % 10_000_000).padStart(7, '0')}`)
}

/** The SMS code last sent to `phone` (+1) after `after`. */
export async function smsCode(
  request: APIRequestContext,
  phone: string,
  after: Date,
): Promise<string> {
  const message = await waitForMessage(request, 'sms', `+1${phone}`, { after })
  expect(message.code, 'the SMS carries a code').toMatch(/^\d{6}$/)
  return message.code ?? ''
}

/** Asks for a code for `phone` (as Get Code does): the HTTP status, the id or the wait asked for. */
export async function askCode(
  request: APIRequestContext,
  email: string,
  phone: string,
): Promise<{ status: number; authyId?: string; retryAfterSeconds?: number }> {
  const response = await request.post('/api/auth/get-code', {
    data: { email, phone, countryCode: '+1' },
  })
  const body = (await response.json()) as {
    authyId?: string
    error?: { details?: { retryAfterSeconds?: number } }
  }
  return {
    status: response.status(),
    authyId: body.authyId,
    retryAfterSeconds: body.error?.details?.retryAfterSeconds,
  }
}

/**
 * {@link askCode}, waiting out the wait between two codes to one phone (a phone the screen had a
 * code sent to a moment ago) as a person would; any other refusal is returned.
 */
async function askCodeWhenAllowed(request: APIRequestContext, email: string, phone: string) {
  for (;;) {
    const sent = await askCode(request, email, phone)
    const wait = sent.retryAfterSeconds
    if (sent.status !== 429 || wait === undefined || wait > 60) return sent
    await new Promise((resolve) => setTimeout(resolve, (wait + 1) * 1000))
  }
}

/** Verifies `phone` as step 1 does: a code by SMS, then Verify Code. */
export async function verifyPhone(
  request: APIRequestContext,
  email: string,
  phone: string,
): Promise<{ authyId: string; phone: string }> {
  const asked = new Date(Date.now() - 1000)
  const sent = await askCodeWhenAllowed(request, email, phone)
  expect(sent.status, 'get-code').toBe(200)
  const code = await smsCode(request, phone, asked)
  const verified = await request.post('/api/auth/verify-code', {
    data: { authyId: sent.authyId, phone, code },
  })
  expect(verified.status(), await verified.text()).toBe(200)
  return { authyId: sent.authyId ?? '', phone }
}

/** Pays with the test card as step 3 does (tokenise, then `POST /auth/pay`); the customer id. */
export async function pay(request: APIRequestContext, values: SignUpSampleValues): Promise<string> {
  const billing = v.parse(BillingInformationSchema, values.billingInformation)
  const practice = v.parse(PracticeDetailsSchema, values.practiceDetails)
  const token = await request.post('/api/payments/test-tokens', {
    data: {
      number: billing.card.number,
      exp_month: billing.card.exp_month,
      exp_year: billing.card.exp_year,
      cvc: billing.card.cvv,
      name: billing.card.name,
    },
  })
  expect(token.status(), await token.text()).toBe(200)
  const { id } = (await token.json()) as { id: string }
  const paid = await request.post('/api/auth/pay', {
    data: {
      token: id,
      email: practice.practice_email,
      billingInformation: buildPayBillingInformation(billing.card.name, billing, practice.country),
    },
  })
  expect(paid.status(), await paid.text()).toBe(200)
  return ((await paid.json()) as { id: string }).id
}

/** The plans and public promo codes the server offers. */
export async function plans(request: APIRequestContext): Promise<PlansAnswer> {
  const response = await request.get('/api/practice/plans')
  expect(response.status()).toBe(200)
  return v.parse(PlansAnswerSchema, await response.json())
}

/** What a reload of the wizard restores: the progress it keeps in sessionStorage. */
export function storedProgress(options: {
  step: StoredSignUp['step']
  values: SignUpSampleValues
  verifiedPhone: { authyId: string; phone: string }
  plans: PlansAnswer
  stripeId: string | null
  accountSetup?: Record<string, unknown>
}): StoredSignUp {
  const { values } = options
  const progress = parseStoredSignUp({
    version: 1,
    step: options.step,
    drafts: {
      clientDetails: values.clientDetails,
      accountSetup: options.accountSetup ?? values.practiceDetails,
      billing: values.billingInformation,
    },
    verifiedPhone: options.verifiedPhone,
    country: 'US',
    plans: options.plans.plans.data,
    publicCoupons: options.plans.coupons.data,
    term: 'month',
    ehrChosen: false,
    coupon: null,
    stripeId: options.stripeId,
    paidCard: options.stripeId
      ? {
          last4: values.billingInformation.card.number.slice(-4),
          type: 'visa',
          name: values.billingInformation.card.name,
          exp_month: Number(values.billingInformation.card.exp_month),
          exp_year: Number(values.billingInformation.card.exp_year),
        }
      : null,
    // Paying takes the signed agreement, so a paid progress carries its signature.
    signature: options.stripeId
      ? {
          signature: values.billingInformation.card.name,
          signer_name: values.billingInformation.card.name,
          date: new Date().toISOString().slice(0, 10),
        }
      : null,
  })
  if (!progress) throw new Error('the progress to restore does not parse')
  return progress
}

/**
 * Signs up a whole practice through the API (verified phone, payment, registration), its Admin
 * with the e-mail `email` (and `phone`, when given): what someone else's finished sign-up leaves
 * behind.
 */
export async function signUpPractice(
  request: APIRequestContext,
  email: string,
  slot: number,
  phone?: string,
): Promise<void> {
  const values = valuesFor(slot)
  values.clientDetails.email = email
  if (phone) values.clientDetails.phone = phone
  const client = v.parse(ClientDetailsSchema, values.clientDetails)
  const practice = v.parse(PracticeDetailsSchema, values.practiceDetails)
  const billing = v.parse(BillingInformationSchema, values.billingInformation)
  const verified = await verifyPhone(request, email, client.phone)
  const stripeId = await pay(request, values)
  const offer = await plans(request)
  const response = await request.post('/api/auth/local/register', {
    data: buildSignUpPayload({
      clientDetails: client,
      authyId: verified.authyId,
      practice,
      billingAddress: billing,
      plans: offer.plans.data,
      term: 'month',
      ehr: false,
      coupon: null,
      stripeId,
      signature: sampleSignature(),
    }),
  })
  expect(response.status(), await response.text()).toBe(200)
}

/** Asks for a reset link for `email` pointing at `origin`/reset; the link and its code. */
export async function resetLink(
  request: APIRequestContext,
  email: string,
  origin: string,
): Promise<{ link: string; code: string }> {
  const asked = new Date(Date.now() - 1000)
  const response = await request.post('/api/auth/forgot-password', {
    data: { email, url: new URL('/reset', origin).href },
  })
  expect(response.status(), await response.text()).toBe(200)
  const mail = await waitForMessage(request, 'email', email, { after: asked })
  const link = mail.link ?? ''
  return { link, code: new URL(link).searchParams.get('code') ?? '' }
}

/** Uses a reset code (as Reset and Sign In does elsewhere), setting `password`. */
export async function spendResetCode(
  request: APIRequestContext,
  code: string,
  password: string,
): Promise<void> {
  const response = await request.post('/api/auth/reset-password', {
    data: { password, passwordConfirmation: password, code },
  })
  expect(response.status(), await response.text()).toBe(200)
}

/** The person an invitation is for (the model's fixture names with an e-mail of their own). */
export type Invitee = {
  email: string
  first: string
  last: string
  title: string
  position: string
}

/** Invites `person` as the demo Admin (as the Personnel area does); the link from the e-mail. */
export async function invite(request: APIRequestContext, person: Invitee): Promise<string> {
  const session = await apiSignIn(request)
  const asked = new Date(Date.now() - 1000)
  const response = await request.post('/api/personnel', {
    headers: { Authorization: `Bearer ${session.jwt}` },
    data: {
      email: person.email,
      first_name: person.first,
      last_name: person.last,
      title: person.title,
      position: person.position,
    },
  })
  expect(response.status(), await response.text()).toBe(201)
  const mail = await waitForMessage(request, 'email', person.email, { after: asked })
  expect(mail.link).toMatch(/\/signup\/personnel\/[\w-]+$/)
  return mail.link ?? ''
}
