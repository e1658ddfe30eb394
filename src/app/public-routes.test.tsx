import { act, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { showAlert } from '#src/lib/alerts.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
  sessionStorage.clear()
})

describe('not found', () => {
  it.each(['/no/such/page', '/dashboardx', '/signup/personnel'])(
    'sends %s to the not-found page',
    async (path) => {
      const { router } = renderRoute(path)
      await waitFor(() => expect(router.state.location.pathname).toBe('/404'))
      expect(
        await screen.findByRole('heading', { level: 1, name: 'Page not found' }),
      ).toBeInTheDocument()
      expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/signin')
      expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toHaveAttribute(
        'href',
        '/dashboard',
      )
    },
  )
})

describe('links with a special shape', () => {
  it('turns /reset=CODE into the reset view with the code', async () => {
    const { router } = renderRoute('/reset=XYZ')
    await waitFor(() => expect(router.state.location.pathname).toBe('/reset'))
    expect(router.state.location.search).toEqual({ code: 'XYZ' })
  })

  it('sends a sign-in path inside a personnel invitation back to the invitation', async () => {
    const { router } = renderRoute('/signup/personnel/inv-123/signin')
    await waitFor(() => expect(router.state.location.pathname).toBe('/signup/personnel/inv-123'))
    expect(await screen.findByRole('heading', { level: 1, name: 'Registration' })).toBeVisible()
  })
})

describe('logout', () => {
  it.each([true, false])(
    'clears both storages and lands on sign in (remember: %s)',
    async (remember) => {
      const { router } = renderRoute('/logout', { session: demoSession, remember })
      await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
      expect(localStorage.getItem(SESSION_KEY)).toBeNull()
      expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
    },
  )
})

describe('thank-you page', () => {
  it('congratulates, lists the three next steps and leads back to sign in', async () => {
    const { router, user } = renderRoute('/thankyou')
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Congratulations!' }),
    ).toBeInTheDocument()
    const steps = screen.getAllByRole('listitem')
    expect(steps).toHaveLength(3)
    expect(steps[0]).toHaveTextContent(/check your email to see whether your account is set up/i)
    expect(steps[1]).toHaveTextContent(/log in to your new admin portal/i)
    expect(steps[2]).toHaveTextContent(/get excited/i)
    await user.click(screen.getByRole('link', { name: 'Back to Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
  })
})

describe('unsubscribe page', () => {
  it('unsubscribes the patient of the link on opening', async () => {
    const calls = stubApi({ 'PUT /patients/unsubscribe/abc': { email_subscription: false } })
    renderRoute('/unsubscribe/abc')
    expect(await screen.findByText('You are successfully unsubscribed!')).toBeInTheDocument()
    expect(calls).toEqual([
      {
        method: 'PUT',
        path: '/patients/unsubscribe/abc',
        search: '',
        body: { email_subscription: false },
      },
    ])
  })

  it('says so clearly when the link is not valid', async () => {
    stubApi({
      'PUT /patients/unsubscribe/abc': apiError(404, 'This unsubscribe link is not valid.'),
    })
    renderRoute('/unsubscribe/abc')
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This unsubscribe link is not valid or has expired.',
    )
    expect(screen.queryByText('You are successfully unsubscribed!')).not.toBeInTheDocument()
  })

  it('explains a network failure instead of showing a blank page', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')))
    renderRoute('/unsubscribe/abc')
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent(
      'We could not reach the server. Check your connection and try again.',
    )
  })
})

describe('offer page', () => {
  const offer = {
    practice: { name: 'Lumen Skin', logo: null },
    patient: { first_name: 'Ada' },
    offer: {
      title: 'Spring peel',
      description: 'Half off a peel this spring.',
      points_cost: 0,
      bonus_points: 50,
      ends_at: '2027-04-30T12:00:00.000Z',
    },
    state: 'open',
    reason: null,
  }

  it("shows the practice's offer and claims it with one click", async () => {
    const calls = stubApi({
      'GET /offers/tok123': offer,
      'POST /offers/tok123/claim': { ...offer, state: 'claimed' },
    })
    const { user } = renderRoute('/offers/tok123')
    expect(
      await screen.findByRole('heading', { level: 2, name: 'Spring peel' }),
    ).toBeInTheDocument()
    expect(screen.getByText('Lumen Skin')).toBeInTheDocument()
    expect(screen.getByText('Half off a peel this spring.')).toBeInTheDocument()
    expect(screen.getByText('Free · earns 50 points · ends April 30, 2027')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Claim offer' }))
    expect(
      await screen.findByText('You claimed this offer. Show this e-mail at your next visit.'),
    ).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Claim offer' })).not.toBeInTheDocument()
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'GET /offers/tok123',
      'POST /offers/tok123/claim',
    ])
  })

  it('says why a claim failed and keeps the offer on screen', async () => {
    stubApi({
      'GET /offers/tok123': offer,
      'POST /offers/tok123/claim': apiError(409, 'This offer has ended.'),
    })
    const { user } = renderRoute('/offers/tok123')
    await user.click(await screen.findByRole('button', { name: 'Claim offer' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('This offer has ended.')
    expect(screen.getByRole('heading', { level: 2, name: 'Spring peel' })).toBeInTheDocument()
  })

  it('says so when the link is not valid', async () => {
    stubApi({ 'GET /offers/nope': apiError(404, 'Not found.') })
    renderRoute('/offers/nope')
    expect(await screen.findByRole('alert')).toHaveTextContent('This offer link is not valid.')
  })
})

// /signup (the wizard) is tested in src/features/sign-up; the personnel registration in
// src/features/personnel.

describe('alert banner', () => {
  it('shows an alert and clears it on the next navigation', async () => {
    const { router } = renderRoute('/thankyou')
    await screen.findByRole('heading', { level: 1, name: 'Congratulations!' })
    act(() => showAlert({ type: 'danger', message: 'Please enter a valid email' }))
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid email')
    await act(() => router.navigate({ to: '/404' }))
    await screen.findByRole('heading', { level: 1, name: 'Page not found' })
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })

  it('keeps a persisting alert for one navigation, then clears it', async () => {
    const { router } = renderRoute('/thankyou')
    await screen.findByRole('heading', { level: 1, name: 'Congratulations!' })
    act(() => showAlert({ type: 'success', message: 'Saved for later', persist: true }))
    await act(() => router.navigate({ to: '/404' }))
    await screen.findByRole('heading', { level: 1, name: 'Page not found' })
    expect(screen.getByRole('alert')).toHaveTextContent('Saved for later')
    await act(() => router.navigate({ to: '/thankyou' }))
    await screen.findByRole('heading', { level: 1, name: 'Congratulations!' })
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })

  it('can be closed', async () => {
    const { user } = renderRoute('/thankyou')
    await screen.findByRole('heading', { level: 1, name: 'Congratulations!' })
    act(() => showAlert({ type: 'success', message: 'Done' }))
    const alert = screen.getByRole('alert')
    await user.click(within(alert).getByRole('button', { name: 'Close message' }))
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })
})
