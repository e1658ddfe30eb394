import { screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { toDay } from '#src/api/appointments.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { LAST_RESET_CODE_KEY, PERSONNEL_SIGNED_UP_KEY } from '#src/lib/storage-keys.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

// The dashboard's loader reads these; empty answers keep it quiet.
const dashboardApi = {
  'GET /patients/all/by-practice/1': [],
  [`GET /appointments/1/${toDay(new Date())}`]: [],
}

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
  sessionStorage.clear()
})

describe('/signin', () => {
  it('shows the Sign In view to a signed-out visitor, without a captcha on localhost', async () => {
    renderRoute('/signin')
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
    expect(screen.getByLabelText(/^Email/)).toBeVisible()
    expect(screen.getByRole('button', { name: 'Show password' })).toBeVisible()
    expect(screen.queryByText('Human check')).toBeNull()
    expect(screen.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/signup')
  })

  it('sends a signed-in visitor to the dashboard', async () => {
    stubApi(dashboardApi)
    const { router } = renderRoute('/signin', { session: demoSession })
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
  })

  it('shows the field messages once a field was left, and on submit', async () => {
    const calls = stubApi({})
    const { user } = renderRoute('/signin')
    const email = await screen.findByLabelText(/^Email/)
    await user.click(email)
    await user.tab()
    expect(await screen.findByText('Please fill email field')).toHaveAttribute('role', 'alert')
    expect(screen.queryByText('Please fill password field')).toBeNull()
    await user.type(email, 'demo@')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Please enter a valid email')).toBeVisible()
    expect(screen.getByText('Please fill password field')).toBeVisible()
    expect(calls).toEqual([])
  })

  it('signs in, keeps the user in localStorage with Remember me and opens the dashboard', async () => {
    const calls = stubApi({ 'POST /auth/local': demoSession, ...dashboardApi })
    const { user, router } = renderRoute('/signin')
    await user.type(await screen.findByLabelText(/^Email/), 'demo@example.com')
    await user.type(screen.getByLabelText(/^Password/), 'DemoPass123')
    await user.click(screen.getByRole('checkbox', { name: 'Remember me' }))
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/auth/local',
      body: { identifier: 'demo@example.com', password: 'DemoPass123', remember: true },
    })
    expect(JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null')).toEqual(demoSession)
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it("shows the server's message (a 429) and stays", async () => {
    stubApi({
      'POST /auth/local': apiError(
        429,
        'Too many attempts. Please wait a few minutes and try again.',
      ),
    })
    const { user, router } = renderRoute('/signin')
    await user.type(await screen.findByLabelText(/^Email/), 'demo@example.com')
    await user.type(screen.getByLabelText(/^Password/), 'wrong')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Too many attempts. Please wait a few minutes and try again.',
    )
    expect(router.state.location.pathname).toBe('/signin')
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it('sends the forgot-password request with the reset page of this site', async () => {
    const calls = stubApi({ 'POST /auth/forgot-password': { ok: true } })
    const { user } = renderRoute('/signin')
    await user.click(await screen.findByRole('button', { name: 'Forgot Password' }))
    // The screen's machine arrives with the first click; then its Forgot Password form shows.
    const reset = await screen.findByRole('button', { name: 'Reset' })
    expect(screen.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible()
    await user.type(screen.getByLabelText(/^Email/), 'demo@example.com')
    await user.click(reset)
    expect(
      await screen.findByRole('heading', { name: 'We have sent the link to your email' }),
    ).toBeVisible()
    expect(calls[0]?.body).toEqual({
      email: 'demo@example.com',
      url: `${window.location.origin}/reset`,
    })
  })

  it('shows the personnel sign-up banner once, then forgets the flag', async () => {
    sessionStorage.setItem(PERSONNEL_SIGNED_UP_KEY, '1')
    renderRoute('/signin')
    expect(
      await screen.findByText(
        'You are successfully Signed Up! Use your new credentials to sign into the system.',
      ),
    ).toBeVisible()
    expect(sessionStorage.getItem(PERSONNEL_SIGNED_UP_KEY)).toBeNull()
  })
})

describe('/reset', () => {
  it('opens the reset view from the e-mailed link, even for a signed-in visitor', async () => {
    renderRoute('/reset?code=abc', { session: demoSession })
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Please enter a new password!' }),
    ).toBeVisible()
  })

  it("opens the reset view from the spec's /reset=CODE form", async () => {
    const { router } = renderRoute('/reset=abc')
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Please enter a new password!' }),
    ).toBeVisible()
    expect(router.state.location.search).toEqual({ code: 'abc' })
  })

  it('goes to sign-in without a code', async () => {
    const { router } = renderRoute('/reset')
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
  })

  it('resets, remembers the code, stores the session for this tab and opens the dashboard', async () => {
    const calls = stubApi({
      'POST /auth/reset-code-status': { valid: true },
      'POST /auth/reset-password': demoSession,
      ...dashboardApi,
    })
    const { user, router } = renderRoute('/reset?code=abc')
    await user.type(await screen.findByLabelText(/^New password/), 'NewPass123')
    await user.type(screen.getByLabelText(/^Confirm password/), 'NewPass123')
    await user.click(screen.getByRole('button', { name: 'Reset and Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
    expect(calls[0]).toMatchObject({ path: '/auth/reset-code-status', body: { code: 'abc' } })
    expect(calls.find((call) => call.path === '/auth/reset-password')?.body).toEqual({
      password: 'NewPass123',
      passwordConfirmation: 'NewPass123',
      code: 'abc',
    })
    expect(localStorage.getItem(LAST_RESET_CODE_KEY)).toBe('abc')
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null')).toEqual(demoSession)
  })

  it('checks the new password before sending: minimum 8 and matching', async () => {
    const calls = stubApi({ 'POST /auth/reset-code-status': { valid: true } })
    const { user } = renderRoute('/reset?code=abc')
    await user.type(await screen.findByLabelText(/^New password/), 'short')
    await user.type(screen.getByLabelText(/^Confirm password/), 'other')
    await user.click(screen.getByRole('button', { name: 'Reset and Sign In' }))
    expect(await screen.findByText('Password should contain minimum 8 characters')).toBeVisible()
    expect(screen.getByText('Passwords should match')).toBeVisible()
    expect(calls.map((call) => call.path)).toEqual(['/auth/reset-code-status'])
  })

  it('a link used before in this browser lands on /signin with the outdated notice', async () => {
    localStorage.setItem(LAST_RESET_CODE_KEY, 'abc')
    const { router } = renderRoute('/reset?code=abc')
    expect(await screen.findByRole('alert')).toHaveTextContent('Password Reset link is outdated!')
    await waitFor(() => expect(router.state.location.href).toBe('/signin'))
    expect(screen.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
  })

  it('shows the outdated notice on /signin also to a visitor who is signed in', async () => {
    localStorage.setItem(LAST_RESET_CODE_KEY, 'abc')
    const { router } = renderRoute('/reset?code=abc', { session: demoSession })
    expect(await screen.findByRole('alert')).toHaveTextContent('Password Reset link is outdated!')
    await waitFor(() => expect(router.state.location.href).toBe('/signin'))
    expect(screen.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible()
  })

  it('a link used or expired anywhere goes to /signin with the outdated notice when opened, never showing the form', async () => {
    const calls = stubApi({ 'POST /auth/reset-code-status': { valid: false } })
    const { router } = renderRoute('/reset?code=used-elsewhere')
    expect(await screen.findByRole('alert')).toHaveTextContent('Password Reset link is outdated!')
    expect(screen.queryByRole('heading', { name: 'Please enter a new password!' })).toBeNull()
    expect(screen.queryByLabelText(/^New password/)).toBeNull()
    await waitFor(() => expect(router.state.location.href).toBe('/signin'))
    expect(calls).toEqual([
      expect.objectContaining({
        path: '/auth/reset-code-status',
        body: { code: 'used-elsewhere' },
      }),
    ])
    expect(localStorage.getItem(LAST_RESET_CODE_KEY)).toBe('used-elsewhere')
  })

  it('a link the server refuses lands on /signin with the outdated notice', async () => {
    stubApi({
      'POST /auth/reset-code-status': { valid: true },
      'POST /auth/reset-password': apiError(400, 'Password Reset link is outdated!'),
    })
    const { user, router } = renderRoute('/reset?code=expired')
    await user.type(await screen.findByLabelText(/^New password/), 'NewPass123')
    await user.type(screen.getByLabelText(/^Confirm password/), 'NewPass123')
    await user.click(screen.getByRole('button', { name: 'Reset and Sign In' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Password Reset link is outdated!')
    await waitFor(() => expect(router.state.location.href).toBe('/signin'))
    expect(localStorage.getItem(LAST_RESET_CODE_KEY)).toBe('expired')
  })
})
