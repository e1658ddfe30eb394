import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  WALLET_MESSAGES,
  type WalletActionAnswer,
  type WalletMe,
  type WalletMembership,
} from '#domain/wallet.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import { WalletCallError, type WalletCalls, WalletSignedOutError } from './api.ts'
import { readWalletSession, saveWalletSession } from './session.ts'
import { WalletApp, type WalletSignInProps } from './wallet-app.tsx'

const PRACTICE_ID = 3
const LATER = new Date(Date.now() + 30 * 60_000).toISOString()

function wallet(overrides: Partial<WalletMe> = {}): WalletMe {
  return {
    practice: { id: PRACTICE_ID, name: 'Radiance Clinic', logo_url: null },
    patient: {
      first_name: 'Grace',
      points: 1250,
      points_value_cents: 1250,
      expiring: [{ points: 300, expires_on: '2027-01-03' }],
      email_subscription: true,
      sms_subscription: true,
      has_email: true,
      has_phone: true,
      referral_url: 'https://glow.example/wallet/3?ref=abc123',
    },
    history: [
      {
        at: '2026-11-20T15:00:00.000Z',
        kind: 'earn',
        text: 'Earned 120 points for a visit',
        points: 120,
      },
    ],
    offers: [
      {
        promotion_id: 11,
        title: 'Winter glow',
        detail: '$50.00 off HydraFacial · Costs 200 points',
        description: 'A brighter skin for the holidays.',
        points_cost: 200,
        ends_at: null,
        claimed: false,
        can_claim: true,
        reason: null,
      },
    ],
    membership: null,
    session: { expires_at: LATER },
    ...overrides,
  }
}

function membership(overrides: Partial<WalletMembership> = {}): WalletMembership {
  return {
    id: 5,
    plan_name: 'Glow Club',
    status: 'active',
    status_text: 'Active: renews on December 27, 2026',
    price_cents: 9900,
    interval: 'month',
    next_bill_at: '2026-12-27T12:00:00.000Z',
    amount_due_cents: 0,
    perks_left: [{ name: 'HydraFacial', remaining: 1 }],
    discount_text: '15% off every treatment',
    bank_cents: 10_000,
    card: { brand: 'Visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    cancel_at_period_end: false,
    cancel_at: null,
    resumes_at: null,
    can_pause: true,
    pause_max_cycles: 3,
    can_cancel: true,
    cancel_effective_at: '2027-01-27T12:00:00.000Z',
    cancel_rules_text: 'You can cancel online at any time; it ends at the end of the paid month.',
    can_update_card: true,
    ...overrides,
  }
}

function answer(message: string, me: WalletMe): WalletActionAnswer {
  return { message, wallet: me }
}

/** Calls that answer `me` and refuse everything else unless a test says otherwise. */
function fakeCalls(
  me: WalletMe,
  cachedAt: string | null = null,
  overrides: Partial<WalletCalls> = {},
) {
  const refuse = () => Promise.reject(new WalletCallError('Not in this test.'))
  const calls: WalletCalls = {
    me: vi.fn(() => Promise.resolve({ wallet: me, cachedAt })),
    claim: vi.fn(refuse),
    consent: vi.fn(refuse),
    updateCard: vi.fn(refuse),
    pause: vi.fn(refuse),
    cancel: vi.fn(refuse),
    logout: vi.fn(() => Promise.resolve()),
    ...overrides,
  }
  return calls
}

function FakeSignIn({ practiceName, onSignedIn }: WalletSignInProps) {
  return (
    <div>
      <h1>Sign in to {practiceName ?? 'your wallet'}</h1>
      <button type="button" onClick={() => onSignedIn({ token: 'tok-new', expires_at: LATER })}>
        Fake sign-in
      </button>
    </div>
  )
}

function renderSignedIn(calls: WalletCalls) {
  saveWalletSession(PRACTICE_ID, { token: 'tok-1', expires_at: LATER })
  return renderWithProviders(
    <WalletApp
      practiceId={PRACTICE_ID}
      practiceName="Radiance Clinic"
      signIn={FakeSignIn}
      callsFor={() => calls}
    />,
  )
}

afterEach(() => localStorage.clear())

describe('the wallet home screen', () => {
  it('shows the practice, the points and their worth, what expires, the history in words and the offers; Claim marks the offer claimed', async () => {
    const me = wallet()
    const claimed = wallet({
      offers: me.offers.map((offer) => ({ ...offer, claimed: true, can_claim: false })),
      patient: { ...me.patient, points: 1050, points_value_cents: 1050 },
    })
    const calls = fakeCalls(me, null, {
      claim: vi.fn(() => Promise.resolve(answer(WALLET_MESSAGES.offerClaimed, claimed))),
    })
    const { user } = renderSignedIn(calls)

    expect(await screen.findByRole('heading', { level: 1, name: 'Radiance Clinic' })).toBeVisible()
    expect(screen.getByText('1,250 points')).toBeVisible()
    expect(screen.getByText('worth $12.50 at Radiance Clinic')).toBeVisible()
    expect(screen.getByText('300 points expire on January 3, 2027')).toBeVisible()
    const history = screen.getByRole('region', { name: 'History' })
    expect(within(history).getByText('Earned 120 points for a visit')).toBeVisible()
    expect(within(history).getByText('+120')).toBeVisible()

    const offers = screen.getByRole('region', { name: 'Offers' })
    expect(within(offers).getByText('$50.00 off HydraFacial · Costs 200 points')).toBeVisible()
    await user.click(within(offers).getByRole('button', { name: 'Claim Winter glow' }))
    expect(calls.claim).toHaveBeenCalledWith(11)
    expect(await within(offers).findByRole('status')).toHaveTextContent(
      WALLET_MESSAGES.offerClaimed,
    )
    expect(within(offers).getByText('Claimed')).toBeVisible()
    expect(within(offers).queryByRole('button', { name: /Claim/ })).toBeNull()
    expect(screen.getByText('1,050 points')).toBeVisible()
  })

  it('says so when there is no history yet and no membership', async () => {
    renderSignedIn(fakeCalls(wallet({ history: [], membership: null, offers: [] })))
    const history = await screen.findByRole('region', { name: 'History' })
    expect(
      within(history).getByText('No points yet. Points you earn at your visits will show here.'),
    ).toBeVisible()
    const plan = screen.getByRole('region', { name: 'Membership' })
    expect(within(plan).getByText(WALLET_MESSAGES.noMembership)).toBeVisible()
    expect(within(plan).queryByRole('button')).toBeNull()
    expect(
      within(screen.getByRole('region', { name: 'Offers' })).getByText(
        'No offers right now. New ones will appear here.',
      ),
    ).toBeVisible()
  })

  it('shows an active membership: plan, next bill, perks left, member price, bank and card', async () => {
    renderSignedIn(fakeCalls(wallet({ membership: membership() })))
    const plan = await screen.findByRole('region', { name: 'Membership' })
    expect(within(plan).getByText('Glow Club')).toBeVisible()
    expect(within(plan).getByText('Active')).toBeVisible()
    expect(within(plan).getByText('$99.00 a month')).toBeVisible()
    expect(within(plan).getByText('December 27, 2026')).toBeVisible()
    expect(within(plan).getByText('1 HydraFacial')).toBeVisible()
    expect(within(plan).getByText('15% off every treatment')).toBeVisible()
    expect(within(plan).getByText('$100.00')).toBeVisible()
    expect(within(plan).getByText('Visa ending in 4242, expires 12/2030')).toBeVisible()
    expect(within(plan).queryByRole('alert')).toBeNull()
  })

  it('leads a past-due membership with what is owed; Update card tokenises the card and pays once', async () => {
    const pastDue = membership({
      status: 'past_due',
      status_text: 'Past due: the payment of November 27 was declined',
      amount_due_cents: 9900,
      card: { brand: 'Visa', last4: '0341', exp_month: 12, exp_year: 2030 },
    })
    const paid = wallet({ membership: membership() })
    const calls = fakeCalls(wallet({ membership: pastDue }), null, {
      updateCard: vi.fn(() =>
        Promise.resolve({
          message: WALLET_MESSAGES.cardCharged('$99.00'),
          charged: true,
          wallet: paid,
        }),
      ),
    })
    const tokens: unknown[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request) => {
        expect(new URL(input.url).pathname).toBe('/api/payments/test-tokens')
        tokens.push(await input.json())
        return Response.json({ id: 'tok_test_4242' })
      }),
    )
    const { user } = renderSignedIn(calls)
    const plan = await screen.findByRole('region', { name: 'Membership' })
    expect(within(plan).getByRole('alert')).toHaveTextContent(
      '$99.00 is due. Update your card to pay it and keep your perks.',
    )
    expect(within(plan).getByText('Past due')).toBeVisible()

    await user.click(within(plan).getByRole('button', { name: 'Update card' }))
    const form = await within(plan).findByRole('form', { name: 'New card' })
    await user.type(within(form).getByLabelText(/^Card number/), '4242424242424242')
    await user.click(within(form).getByRole('combobox', { name: /^Expiration month/ }))
    await user.click(await screen.findByRole('option', { name: '12' }))
    await user.click(within(form).getByRole('combobox', { name: /^Expiration year/ }))
    await user.click(await screen.findByRole('option', { name: '2030' }))
    await user.type(within(form).getByLabelText(/^CVV/), '123')
    await user.type(within(form).getByLabelText(/^Cardholder name/), 'Grace Member')
    await user.click(within(form).getByRole('button', { name: 'Save card and pay $99.00' }))

    expect(await within(plan).findByRole('status')).toHaveTextContent(
      'Your card is saved and $99.00 was charged. Thank you!',
    )
    expect(calls.updateCard).toHaveBeenCalledTimes(1)
    expect(calls.updateCard).toHaveBeenCalledWith('tok_test_4242')
    expect(tokens).toEqual([
      {
        number: '4242424242424242',
        exp_month: '12',
        exp_year: '2030',
        cvc: '123',
        name: 'Grace Member',
      },
    ])
    expect(within(plan).getByText('Active')).toBeVisible()
    expect(within(plan).queryByRole('alert')).toBeNull()
  })

  it('cancels only after a confirmation that says when the membership ends', async () => {
    const cancelled = wallet({
      membership: membership({
        cancel_at_period_end: true,
        cancel_at: '2027-01-27T12:00:00.000Z',
        can_cancel: false,
      }),
    })
    const calls = fakeCalls(wallet({ membership: membership() }), null, {
      cancel: vi.fn(() =>
        Promise.resolve(answer(WALLET_MESSAGES.cancelScheduled('January 27, 2027'), cancelled)),
      ),
    })
    const { user } = renderSignedIn(calls)
    const plan = await screen.findByRole('region', { name: 'Membership' })
    await user.click(within(plan).getByRole('button', { name: 'Cancel membership' }))
    expect(
      within(plan).getByText(
        'If you cancel now, your membership ends on January 27, 2027. You keep its perks until then.',
      ),
    ).toBeVisible()
    expect(calls.cancel).not.toHaveBeenCalled()
    await user.click(within(plan).getByRole('button', { name: 'Yes, cancel my membership' }))
    expect(await within(plan).findByRole('status')).toHaveTextContent(
      'Your membership is cancelled: it ends on January 27, 2027.',
    )
    expect(within(plan).getByText('Ends on')).toBeVisible()
    expect(within(plan).queryByRole('button', { name: 'Cancel membership' })).toBeNull()
  })

  it('keeps the switches as set when saving consent is refused, and says why', async () => {
    const calls = fakeCalls(wallet(), null, {
      consent: vi.fn(() =>
        Promise.reject(
          new WalletCallError(
            'We could not reach your practice. Please check your connection and try again.',
          ),
        ),
      ),
    })
    const { user } = renderSignedIn(calls)
    const messages = await screen.findByRole('region', { name: 'Messages from the practice' })
    const sms = within(messages).getByRole('switch', { name: /Text messages/ })
    await user.click(sms)
    await user.click(within(messages).getByRole('button', { name: 'Save my choices' }))
    expect(calls.consent).toHaveBeenCalledWith({
      email_subscription: true,
      sms_subscription: false,
    })
    expect(await within(messages).findByRole('alert')).toHaveTextContent(
      'We could not reach your practice.',
    )
    expect(sms).not.toBeChecked()
    expect(within(messages).getByRole('switch', { name: /E-mails/ })).toBeChecked()
  })

  it('offline, shows the kept answer under a banner that says when it was kept', async () => {
    renderSignedIn(fakeCalls(wallet({ membership: membership() }), '2026-11-27T18:00:00.000Z'))
    const banner = await screen.findByRole('status', { name: 'You are offline' })
    expect(banner).toHaveTextContent('This is your wallet as it was on Nov 27, 2026')
    expect(screen.getByText('1,250 points')).toBeVisible()
    expect(screen.getByRole('region', { name: 'Membership' })).toHaveTextContent('Glow Club')
  })

  it('returns to sign-in when the session has ended (401), and forgets it', async () => {
    const calls = fakeCalls(wallet(), null, {
      me: vi.fn(() => Promise.reject(new WalletSignedOutError('expired'))),
    })
    renderSignedIn(calls)
    expect(await screen.findByRole('heading', { name: 'Sign in to Radiance Clinic' })).toBeVisible()
    expect(screen.getByRole('status')).toHaveTextContent(WALLET_MESSAGES.signedOut)
    expect(readWalletSession(PRACTICE_ID)).toBeNull()
  })

  it('logs out: the session is forgotten and sign-in shows', async () => {
    const calls = fakeCalls(wallet())
    const { user } = renderSignedIn(calls)
    await user.click(await screen.findByRole('button', { name: 'Log out' }))
    expect(calls.logout).toHaveBeenCalledTimes(1)
    expect(await screen.findByRole('status')).toHaveTextContent(WALLET_MESSAGES.signedOutNow)
    expect(readWalletSession(PRACTICE_ID)).toBeNull()
  })

  it('signs in: the session handed over is kept and the home screen loads', async () => {
    const calls = fakeCalls(wallet())
    const { user } = renderWithProviders(
      <WalletApp
        practiceId={PRACTICE_ID}
        practiceName="Radiance Clinic"
        signIn={FakeSignIn}
        callsFor={() => calls}
      />,
    )
    await user.click(screen.getByRole('button', { name: 'Fake sign-in' }))
    expect(await screen.findByText('1,250 points')).toBeVisible()
    await waitFor(() => expect(readWalletSession(PRACTICE_ID)?.token).toBe('tok-new'))
  })
})
