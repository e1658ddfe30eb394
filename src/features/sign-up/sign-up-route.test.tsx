import { screen, waitFor, within } from '@testing-library/react'
import userEvent, { type UserEvent } from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SESSION_KEY } from '#src/lib/session.ts'
import { SIGN_UP_PROGRESS_KEY } from '#src/lib/storage-keys.ts'
import {
  fixturePlansAnswer,
  fixtureSignUpAnswer,
  storedProgress,
} from '#tests/flows/sign-up/model.ts'
import { apiError, type FakeCall, type FakeRoutes, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

// These tests open /signup in the real app (router, route, real actors over the API module)
// with a fake API. jsdom runs on localhost, so the wizard is in test mode: steps 2 onward start
// filled in.

const person = {
  name: 'Ann',
  last: 'Smith',
  phone: '5551234567',
  email: 'ann.smith@example.com',
  password: 'Glow!Pass123',
}

/** The register call's answer: the new Admin signed in, as a sign-in answers. */
const signedUp = {
  ...fixtureSignUpAnswer,
  user: { ...fixtureSignUpAnswer.user, email: person.email },
}

function text(body: string, status = 200): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })
}

/** The API of a sign-up that goes through; `overrides` replace single answers. */
function signUpApi(overrides: FakeRoutes = {}): FakeCall[] {
  return stubApi({
    'POST /auth/get-code': { authyId: 'authy-1' },
    'POST /auth/verify-code': { verified: true },
    'POST /auth/check-email': () => text('OK'),
    'GET /practice/plans': fixturePlansAnswer,
    'POST /payments/test-tokens': { id: 'tok_test_1' },
    'POST /auth/pay': { id: 'cus_test_1' },
    'POST /auth/local/register': signedUp,
    ...overrides,
  })
}

function input(label: RegExp): HTMLInputElement {
  return screen.getByLabelText(label, { selector: 'input' }) as HTMLInputElement
}

async function type(user: UserEvent, label: RegExp, value: string) {
  const field = input(label)
  await user.clear(field)
  await user.click(field)
  await user.paste(value)
}

async function choose(user: UserEvent, label: RegExp, option: string) {
  await user.click(screen.getByRole('combobox', { name: label }))
  await user.click(await screen.findByRole('option', { name: option }))
}

/** Signs the Business Associates Agreement on step 3 (accepting it takes the signature). */
async function signAgreement(user: UserEvent) {
  await user.click(screen.getByRole('button', { name: 'Business Associates Agreement' }))
  await user.type(await screen.findByRole('textbox', { name: /^Signature/ }), 'Jane Doe')
  await user.type(screen.getByRole('textbox', { name: /^Signer's name/ }), 'Jane Doe')
  await user.click(screen.getByRole('button', { name: 'Sign' }))
  await user.click(screen.getByRole('button', { name: 'Back to Billing Information' }))
}

/** Step 1 with the code, then Continue: the wizard moves to step 2 (pre-filled in test mode). */
async function passStepOne(user: UserEvent) {
  await screen.findByRole('heading', { level: 2, name: 'Client Information' })
  await type(user, /^First name/, person.name)
  await type(user, /^Last name/, person.last)
  await type(user, /^Phone number/, person.phone)
  await type(user, /^Email/, person.email)
  await type(user, /^Password/, person.password)
  await type(user, /^Confirm password/, person.password)
  await choose(user, /^Position/, 'Staff')
  await user.click(screen.getByRole('button', { name: 'Get Code' }))
  await screen.findByText('Confirmation Code is sent')
  await type(user, /^Confirmation code/, '918273')
  await user.click(screen.getByRole('button', { name: 'Verify Code' }))
  await screen.findByText('Phone number verified')
  await user.click(screen.getByRole('button', { name: 'Continue' }))
}

function storedText(): string {
  return sessionStorage.getItem(SIGN_UP_PROGRESS_KEY) ?? ''
}

beforeEach(() => {
  vi.useFakeTimers()
  // Testing Library advances fake timers inside act while it waits, when it sees `jest`.
  vi.stubGlobal('jest', { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) })
  sessionStorage.clear()
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

function open(path = '/signup') {
  const result = renderRoute(path)
  return { ...result, user: userEvent.setup({ delay: null }) }
}

describe('/signup', () => {
  it('opens on step 1 with the four steps, a link to sign in and Back to Sign In', async () => {
    signUpApi()
    const { router, user } = open()
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign Up' })).toBeVisible()
    for (const step of ['Client Information', 'Account Setup', 'Billing Information']) {
      expect(screen.getAllByText(step).length).toBeGreaterThan(0)
    }
    expect(screen.getByText('Confirmation')).toBeVisible()
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/signin')
    expect(screen.getByRole('button', { name: 'Continue' })).toBeDisabled()
    await user.click(screen.getByRole('button', { name: 'Back to Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
  })

  it('signs a practice up through the API, forgets the progress and shows the thank-you page', async () => {
    const calls = signUpApi()
    const { router, user } = open()
    await passStepOne(user)
    await screen.findByRole('heading', { level: 2, name: 'Account Setup' })
    expect(input(/^Practice name/).value).toBe('Glow Test Clinic')
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await screen.findByRole('region', { name: 'Price summary' })
    await signAgreement(user)
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await screen.findByRole('heading', { level: 2, name: 'Confirmation' })
    expect(screen.getByRole('region', { name: 'Billing Information' })).toHaveTextContent(
      'Visa •••• 4242',
    )
    await user.click(screen.getByRole('button', { name: 'Submit' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/thankyou'))
    expect(sessionStorage.getItem(SIGN_UP_PROGRESS_KEY)).toBeNull()
    // The new Admin is signed in with the register call's session, as a sign-in stores it (this
    // tab, no Remember me): Back to Sign In lands in the portal.
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null')).toEqual(signedUp)
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()

    const paths = calls.map((call) => `${call.method} ${call.path}`)
    expect(paths).toEqual([
      'POST /auth/get-code',
      'POST /auth/verify-code',
      'POST /auth/check-email',
      'POST /auth/check-email',
      'GET /practice/plans',
      'POST /payments/test-tokens',
      'POST /auth/pay',
      'POST /auth/local/register',
    ])
    const [getCode, verify, personCheck, practiceCheck, , token, pay, register] = calls
    expect(getCode?.body).toEqual({ email: person.email, phone: person.phone, countryCode: '+1' })
    expect(verify?.body).toEqual({ authyId: 'authy-1', phone: person.phone, code: '918273' })
    expect(personCheck?.body).toEqual({ email: person.email, phone: person.phone })
    expect(practiceCheck?.body).toMatchObject({ email: expect.stringMatching(/^practice\./) })
    expect(token?.body).toMatchObject({ number: '4242424242424242', cvc: '123' })
    expect(pay?.body).toMatchObject({ token: 'tok_test_1' })
    expect(JSON.stringify(pay?.body)).not.toContain('4242424242424242')
    expect(register?.body).toMatchObject({
      email: person.email,
      password: person.password,
      first_name: person.name,
      authyId: 'authy-1',
      stripe_id: 'cus_test_1',
      access_rights: 'Admin',
      position: 'Staff',
    })
    expect(await screen.findByRole('heading', { name: 'Congratulations!' })).toBeVisible()
    await user.click(screen.getByRole('link', { name: 'Back to Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
  })

  it('keeps the progress in sessionStorage without passwords, card number, CVV or code', async () => {
    signUpApi()
    const { user } = open()
    await passStepOne(user)
    await screen.findByRole('heading', { level: 2, name: 'Account Setup' })
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await screen.findByRole('region', { name: 'Price summary' })
    const stored = storedText()
    expect(stored).toContain(person.email)
    expect(stored).toContain('"step":"billing"')
    for (const secret of [person.password, '4242424242424242', '4242 4242', '"cvv"', '918273']) {
      expect(stored).not.toContain(secret)
    }
  })

  it('resumes stored progress on step 2, and Back shows step 1 without the passwords', async () => {
    signUpApi()
    const progress = storedProgress('accountSetup', false)
    progress.drafts.accountSetup.practice_name = 'Stored Clinic'
    sessionStorage.setItem(SIGN_UP_PROGRESS_KEY, JSON.stringify(progress))
    const { user } = open()
    await screen.findByRole('heading', { level: 2, name: 'Account Setup' })
    expect(input(/^Practice name/).value).toBe('Stored Clinic')
    await user.click(screen.getByRole('button', { name: 'Back' }))
    await screen.findByRole('heading', { level: 2, name: 'Client Information' })
    expect(input(/^Email/).value).toBe(progress.drafts.clientDetails.email)
    expect(input(/^Password/).value).toBe('')
    expect(screen.getByText('Phone number verified')).toBeVisible()
  })

  it("shows 'Phone or email is already taken' when the server says the phone is taken", async () => {
    signUpApi({ 'POST /auth/check-email': () => text('Phone number is already taken.', 409) })
    const { user } = open()
    await passStepOne(user)
    const alert = await screen.findByText('Phone or email is already taken')
    expect(alert.closest('[role="alert"]')).not.toBeNull()
    expect(screen.getByRole('heading', { level: 2, name: 'Client Information' })).toBeVisible()
  })

  it("shows 'Ooops, something going wrong please try again' for any other failed check", async () => {
    signUpApi({ 'POST /auth/check-email': () => text('Internal error', 500) })
    const { user } = open()
    await passStepOne(user)
    expect(await screen.findByText('Ooops, something going wrong please try again')).toBeVisible()
  })

  it('shows a declined payment in a warning box and a card the tokeniser refuses as an alert', async () => {
    let tokenAnswer: Response | null = apiError(400, 'Your card number is incorrect.')
    signUpApi({
      'POST /payments/test-tokens': () => tokenAnswer ?? { id: 'tok_test_2' },
      'POST /auth/pay': apiError(402, 'Your card was declined.'),
    })
    const { user } = open()
    await passStepOne(user)
    await screen.findByRole('heading', { level: 2, name: 'Account Setup' })
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await screen.findByRole('region', { name: 'Price summary' })
    await signAgreement(user)

    await user.click(screen.getByRole('button', { name: 'Continue' }))
    const refused = await screen.findByText('Your card number is incorrect.')
    expect(screen.queryByText('Payment not completed')).toBeNull()
    expect(refused.closest('[role="alert"]')).not.toBeNull()

    tokenAnswer = null
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    const declined = await screen.findByText('Your card was declined.')
    const box = declined.closest('[role="alert"]') as HTMLElement
    expect(within(box).getByText('Payment not completed')).toBeVisible()
    expect(screen.getByRole('heading', { level: 2, name: 'Billing Information' })).toBeVisible()
  })

  it('moves focus to the step heading after Continue, and to the first invalid field when refused', async () => {
    signUpApi()
    const { user } = open()
    await passStepOne(user)
    const heading = await screen.findByRole('heading', { level: 2, name: 'Account Setup' })
    await waitFor(() => expect(heading).toHaveFocus())
    await user.clear(input(/^Website/))
    await user.clear(input(/^City/))
    await user.click(screen.getByRole('button', { name: 'Continue' }))
    await waitFor(() => expect(input(/^Website/)).toHaveFocus())
    expect(screen.getByText('Please fill URL field')).toBeVisible()
    expect(screen.getByText('Please fill city field')).toBeVisible()
  })
})
