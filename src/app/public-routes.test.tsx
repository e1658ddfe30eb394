import { act, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { showAlert } from '#src/lib/alerts.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { demoSession } from '#tests/support/demo-session.ts'
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
