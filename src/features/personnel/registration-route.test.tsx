import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

const invitation = {
  first_name: 'Jordan',
  last_name: 'Lee',
  email: 'jordan.lee@example.com',
  position: 'Provider',
  title: null,
  practice_name: 'Glow Demo Med Spa',
}

function api(overrides: Record<string, unknown> = {}) {
  return stubApi({
    'GET /personnel/inv-1': invitation,
    'POST /auth/get-code': { authyId: 'authy-1' },
    'POST /auth/verify-code': { verified: true },
    'POST /auth/personnel/register': {
      user: {
        ...demoSession.user,
        id: 9,
        email: invitation.email,
        username: invitation.email,
        first_name: invitation.first_name,
        last_name: invitation.last_name,
        access_rights: 'Staff',
      },
    },
    ...overrides,
  })
}

describe('signup/personnel/{id}', () => {
  it('goes to /404 when the invitation cannot be found', async () => {
    stubApi({ 'GET /personnel/gone': apiError(404, 'This invitation link is not valid any more.') })
    const { router } = renderRoute('/signup/personnel/gone')
    await waitFor(() => expect(router.state.location.pathname).toBe('/404'))
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible()
  })

  it('says that a used invitation has already been used, with a way to Sign In', async () => {
    stubApi({
      'GET /personnel/used-1': new Response(
        JSON.stringify({
          error: {
            status: 410,
            name: 'GoneError',
            message: 'This invitation has already been used',
            details: { reason: 'used', practice_name: 'Glow Demo Med Spa' },
          },
        }),
        { status: 410, headers: { 'content-type': 'application/json' } },
      ),
    })
    const { router } = renderRoute('/signup/personnel/used-1')
    expect(await screen.findByText('This invitation has already been used')).toBeVisible()
    expect(screen.getByRole('heading', { level: 1, name: 'Registration' })).toBeVisible()
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/signin')
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull()
    expect(router.state.location.pathname).toBe('/signup/personnel/used-1')
  })

  it('says that an expired invitation has expired and who can send a new one', async () => {
    const message =
      'This invitation has expired. Ask an Admin of Glow Demo Med Spa to send you a new one.'
    stubApi({
      'GET /personnel/old-1': new Response(
        JSON.stringify({
          error: {
            status: 410,
            name: 'GoneError',
            message,
            details: { reason: 'expired', practice_name: 'Glow Demo Med Spa' },
          },
        }),
        { status: 410, headers: { 'content-type': 'application/json' } },
      ),
    })
    renderRoute('/signup/personnel/old-1')
    expect(await screen.findByText(message)).toBeVisible()
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/signin')
    expect(screen.queryByRole('textbox', { name: /Phone number/ })).toBeNull()
  })

  it('shows the form pre-filled from the invitation, with e-mail and position fixed', async () => {
    api()
    renderRoute('/signup/personnel/inv-1')
    expect(
      await screen.findByRole('heading', { level: 2, name: 'Registration Details' }),
    ).toBeVisible()
    expect(screen.getByRole('heading', { level: 1, name: 'Registration' })).toBeVisible()
    expect(screen.getByText('Join Glow Demo Med Spa on Glow Rewards')).toBeVisible()
    expect(screen.getByLabelText(/^First name/)).toHaveValue('Jordan')
    expect(screen.getByLabelText(/^Last name/)).toHaveValue('Lee')
    expect(screen.getByLabelText('Email')).toHaveValue('jordan.lee@example.com')
    expect(screen.getByLabelText('Email')).toHaveAttribute('readonly')
    expect(screen.getByLabelText('Position')).toHaveValue('Provider')
    expect(screen.getByLabelText('Position')).toHaveAttribute('readonly')
    expect(screen.getByRole('combobox', { name: 'Country code' })).toHaveValue('+1')
    expect(screen.getByText('Please retype your password')).toBeVisible()
    expect(screen.getByLabelText('Confirmation code')).toBeDisabled()
    for (const name of ['Get Code', 'Verify Code', 'Submit']) {
      expect(screen.getByRole('button', { name })).toBeDisabled()
    }
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/signin')
  })

  it('shows the spec messages once a field is touched, not before', async () => {
    api()
    const { user } = renderRoute('/signup/personnel/inv-1')
    const phone = await screen.findByLabelText(/^Phone number/)
    expect(screen.queryByRole('alert')).toBeNull()
    await user.type(phone, '555-1234')
    await user.tab()
    expect(await screen.findByText('Phone number should contain only numbers')).toHaveAttribute(
      'role',
      'alert',
    )
    await user.clear(screen.getByLabelText(/^First name/))
    await user.tab()
    expect(await screen.findByText('Please fill first name field')).toBeVisible()
    await user.type(screen.getByLabelText(/^Password/), 'Secret123')
    await user.type(screen.getByLabelText(/^Confirm password/), 'Secret124')
    await user.tab()
    expect(await screen.findByText('Passwords should match')).toBeVisible()
  })

  it('verifies the phone, registers and shows the banner on Sign In', async () => {
    const calls = api()
    const { user, router } = renderRoute('/signup/personnel/inv-1')
    await user.type(await screen.findByLabelText(/^Phone number/), '5551234567')
    await user.type(screen.getByLabelText(/^Password/), 'Secret123')
    await user.type(screen.getByLabelText(/^Confirm password/), 'Secret123')
    const getCode = screen.getByRole('button', { name: 'Get Code' })
    await waitFor(() => expect(getCode).toBeEnabled())
    await user.click(getCode)
    expect(await screen.findByText('Confirmation Code is sent')).toBeVisible()
    const code = screen.getByLabelText('Confirmation code')
    expect(code).toBeEnabled()
    await user.type(code, '123456')
    await user.click(screen.getByRole('button', { name: 'Verify Code' }))
    expect(await screen.findByText('Phone number verified')).toBeVisible()
    expect(screen.getByLabelText(/^Phone number/)).toHaveAttribute('readonly')
    expect(screen.getByRole('button', { name: 'Get Code' })).toBeDisabled()
    await user.click(screen.getByRole('button', { name: 'Submit' }))

    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(
      await screen.findByText(
        'You are successfully Signed Up! Use your new credentials to sign into the system.',
      ),
    ).toBeVisible()
    expect(calls.find((c) => c.path === '/auth/get-code')?.body).toEqual({
      email: 'jordan.lee@example.com',
      phone: '5551234567',
      countryCode: '+1',
    })
    expect(calls.find((c) => c.path === '/auth/verify-code')?.body).toEqual({
      authyId: 'authy-1',
      phone: '5551234567',
      code: '123456',
    })
    expect(calls.find((c) => c.path === '/auth/personnel/register')?.body).toEqual({
      id: 'inv-1',
      title: '',
      first_name: 'Jordan',
      last_name: 'Lee',
      email: 'jordan.lee@example.com',
      position: 'Provider',
      cell_phone: '5551234567',
      country_code: '+1',
      password: 'Secret123',
      password_confirm: 'Secret123',
      authyId: 'authy-1',
      username: 'jordan.lee@example.com',
    })
  })

  it("shows the server's message when registering fails", async () => {
    api({
      'POST /auth/personnel/register': apiError(
        409,
        'A person with this e-mail already has an account.',
      ),
    })
    const { user, router } = renderRoute('/signup/personnel/inv-1')
    await user.type(await screen.findByLabelText(/^Phone number/), '5551234567')
    await user.type(screen.getByLabelText(/^Password/), 'Secret123')
    await user.type(screen.getByLabelText(/^Confirm password/), 'Secret123')
    await user.click(screen.getByRole('button', { name: 'Get Code' }))
    await user.type(await screen.findByRole('textbox', { name: 'Confirmation code' }), '123456')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Verify Code' })).toBeEnabled())
    await user.click(screen.getByRole('button', { name: 'Verify Code' }))
    await screen.findByText('Phone number verified')
    await user.click(screen.getByRole('button', { name: 'Submit' }))
    const alert = await screen.findByText('A person with this e-mail already has an account.')
    expect(alert.closest('[role="alert"]')).not.toBeNull()
    expect(router.state.location.pathname).toBe('/signup/personnel/inv-1')
    expect(within(screen.getByRole('form')).getByRole('button', { name: 'Submit' })).toBeEnabled()
  })
})
