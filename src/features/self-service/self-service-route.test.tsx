import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { FIELD_MESSAGES } from '#domain/fields.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import { ROLE_ABILITIES, SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { demoStaffMember } from '#src/lib/testing/fixtures.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

const admin = demoStaffMember
const jamie: StaffMember = {
  ...admin,
  id: 61,
  email: 'jamie@example.com',
  first_name: 'Jamie',
  last_name: 'Lopez',
  position: 'Staff',
  access_rights: 'Staff',
  last_sign_in_at: null,
}
const riley: StaffMember = {
  ...jamie,
  id: 62,
  email: 'riley@example.com',
  first_name: 'Riley',
  last_name: 'Chen',
}

function rowOf(email: string): HTMLElement {
  const row = screen.getByText(email).closest('tr')
  if (!row) throw new Error(`no row for ${email}`)
  return row
}

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })

describe('Personnel for an Admin: roles and deactivation', () => {
  it('changes a role, asks before deactivating, and reloads the list', async () => {
    let listed = [admin, jamie, riley]
    const calls = stubApi({
      'GET /users': () => listed,
      'GET /personnel': [],
      [`PUT /users/${jamie.id}/role`]: (call: FakeCall) => {
        const next = {
          ...jamie,
          access_rights: (call.body as { access_rights: string }).access_rights,
        }
        listed = [admin, next, riley]
        return json(next)
      },
      [`POST /users/${riley.id}/deactivate`]: () => {
        const next = { ...riley, deactivated_at: '2026-06-02T10:00:00.000Z' }
        listed = [admin, listed[1] as StaffMember, next]
        return json(next)
      },
    })
    const { user } = renderRoute('/personnel', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    expect(within(rowOf(admin.email)).getByText('You')).toBeVisible()
    expect(within(rowOf(jamie.email)).getByText('Never')).toBeVisible()

    await user.click(
      within(rowOf(jamie.email)).getByRole('combobox', { name: 'Role of Jamie Lopez' }),
    )
    await user.click(await screen.findByRole('option', { name: 'Manager' }))
    // Asked first: cancelling leaves the role as it was.
    let question = await screen.findByRole('dialog', { name: 'Make Jamie Lopez a Manager?' })
    expect(question).toHaveTextContent(
      `Jamie Lopez is a Staff member now. ${ROLE_ABILITIES.Manager} The change applies from their next request`,
    )
    await waitFor(() =>
      expect(within(question).getByRole('button', { name: 'Cancel' })).toHaveFocus(),
    )
    await user.click(within(question).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(calls.some((c) => c.method === 'PUT')).toBe(false)
    expect(
      within(rowOf(jamie.email)).getByRole('combobox', { name: 'Role of Jamie Lopez' }),
    ).toHaveValue('Staff')
    await user.click(
      within(rowOf(jamie.email)).getByRole('combobox', { name: 'Role of Jamie Lopez' }),
    )
    await user.click(await screen.findByRole('option', { name: 'Manager' }))
    question = await screen.findByRole('dialog', { name: 'Make Jamie Lopez a Manager?' })
    await user.click(within(question).getByRole('button', { name: 'Make Manager' }))
    expect(await screen.findByText('Jamie Lopez is now Manager.')).toBeVisible()
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ access_rights: 'Manager' })

    await user.click(
      within(rowOf(riley.email)).getByRole('button', { name: 'Deactivate Riley Chen' }),
    )
    const dialog = await screen.findByRole('dialog', { name: 'Deactivate member?' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(calls.some((c) => c.path.endsWith('/deactivate'))).toBe(false)
    await user.click(
      within(rowOf(riley.email)).getByRole('button', { name: 'Deactivate Riley Chen' }),
    )
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Deactivate member?' })).getByRole(
        'button',
        { name: 'Deactivate' },
      ),
    )
    expect(
      await screen.findByText(SELF_SERVICE_MESSAGES.deactivatedMember('Riley Chen')),
    ).toBeVisible()
    await waitFor(() => expect(within(rowOf(riley.email)).getByText('deactivated')).toBeVisible())
    expect(
      within(rowOf(riley.email)).getByRole('button', { name: 'Reactivate Riley Chen' }),
    ).toBeEnabled()
  })

  it("shows the server's refusal when the last Admin would go", async () => {
    const second = { ...admin, id: 70, email: 'second@example.com', first_name: 'Sole' }
    stubApi({
      'GET /users': [admin, second],
      'GET /personnel': [],
      'PUT /users/70/role': apiError(409, SELF_SERVICE_MESSAGES.lastAdmin),
    })
    const { user } = renderRoute('/personnel', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    await user.click(within(rowOf(second.email)).getByRole('combobox', { name: /^Role of Sole/ }))
    await user.click(await screen.findByRole('option', { name: 'Staff' }))
    await user.click(
      within(
        await screen.findByRole('dialog', { name: 'Make Sole Admin a Staff member?' }),
      ).getByRole('button', { name: 'Make Staff' }),
    )
    const refusal = await screen.findByText(SELF_SERVICE_MESSAGES.lastAdmin)
    expect(refusal.closest('[role="alert"]')).not.toBeNull()
  })

  it('shows a Staff member no role menus and no deactivate buttons', async () => {
    stubApi({ 'GET /users': [admin, jamie], 'GET /personnel': [] })
    renderRoute('/personnel', {
      session: {
        ...demoSession,
        user: { ...demoSession.user, id: jamie.id, access_rights: 'Staff' },
      },
    })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    expect(screen.queryByRole('combobox', { name: /^Role of/ })).toBeNull()
    expect(screen.queryByRole('button', { name: /Deactivate|Reactivate/ })).toBeNull()
    expect(screen.queryByRole('columnheader', { name: 'Last sign-in' })).toBeNull()
  })
})

describe('My Profile: change password', () => {
  it('keeps what was typed on a refusal, then says other sessions ended', async () => {
    let answer: Response | (() => Response) = apiError(
      400,
      SELF_SERVICE_MESSAGES.currentPasswordWrong,
    )
    const calls = stubApi({
      [`GET /users/${admin.id}`]: admin,
      'POST /auth/change-password': () => (typeof answer === 'function' ? answer() : answer),
    })
    const { user } = renderRoute(`/personnel/${admin.id}`, { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'My Profile' })
    const form = screen.getByRole('form', { name: 'Change password' })
    await user.type(within(form).getByLabelText(/^Current password/), 'Wrong-Guess-99')
    await user.type(within(form).getByLabelText(/^New password/), 'password')
    await user.type(within(form).getByLabelText(/^Confirm new password/), 'password')
    await user.click(within(form).getByRole('button', { name: 'Change password' }))
    // The common-password rule refuses before anything is sent.
    expect(calls.some((c) => c.path === '/auth/change-password')).toBe(false)
    // So does sign-up's strong rule, with its sentence: any 8 characters are not enough.
    await user.clear(within(form).getByLabelText(/^New password/))
    await user.type(within(form).getByLabelText(/^New password/), 'copper meadow')
    await user.clear(within(form).getByLabelText(/^Confirm new password/))
    await user.type(within(form).getByLabelText(/^Confirm new password/), 'copper meadow')
    await user.click(within(form).getByRole('button', { name: 'Change password' }))
    expect(within(form).getByLabelText(/^New password/)).toHaveAccessibleDescription(
      expect.stringContaining(FIELD_MESSAGES.password.strong),
    )
    expect(calls.some((c) => c.path === '/auth/change-password')).toBe(false)
    await user.clear(within(form).getByLabelText(/^New password/))
    await user.type(within(form).getByLabelText(/^New password/), 'Copper-Meadow-77')
    await user.clear(within(form).getByLabelText(/^Confirm new password/))
    await user.type(within(form).getByLabelText(/^Confirm new password/), 'Copper-Meadow-77')
    await user.click(within(form).getByRole('button', { name: 'Change password' }))
    const refusal = await within(form).findByText(SELF_SERVICE_MESSAGES.currentPasswordWrong)
    expect(refusal.closest('[role="alert"]')).not.toBeNull()
    expect(within(form).getByLabelText(/^New password/)).toHaveValue('Copper-Meadow-77')

    answer = () => json({ ...demoSession, jwt: 'fresh.jwt.token' })
    await user.clear(within(form).getByLabelText(/^Current password/))
    await user.type(within(form).getByLabelText(/^Current password/), 'DemoPass123')
    await user.click(within(form).getByRole('button', { name: 'Change password' }))
    expect(await within(form).findByText(SELF_SERVICE_MESSAGES.passwordChanged)).toBeVisible()
    expect(calls.filter((c) => c.path === '/auth/change-password').at(-1)?.body).toEqual({
      current_password: 'DemoPass123',
      password: 'Copper-Meadow-77',
      passwordConfirmation: 'Copper-Meadow-77',
      remember: false,
    })
    expect(within(form).getByLabelText(/^Current password/)).toHaveValue('')
  })

  it('edits the own names with the name rules and says so', async () => {
    const calls = stubApi({
      [`GET /users/${admin.id}`]: admin,
      [`PUT /users/${admin.id}`]: (call: FakeCall) => json({ ...admin, ...(call.body as object) }),
    })
    const { user } = renderRoute(`/personnel/${admin.id}`, { session: demoSession })
    const form = await screen.findByRole('form', { name: 'Your details' })
    const last = within(form).getByRole('textbox', { name: /^Last name/ })
    await user.clear(last)
    await user.type(last, 'X1')
    await user.click(within(form).getByRole('button', { name: 'Save details' }))
    expect(
      await within(form).findByText("Last name should contain only letters, -, ` and '"),
    ).toBeVisible()
    expect(calls.some((c) => c.method === 'PUT')).toBe(false)
    await user.clear(last)
    await user.type(last, 'Adams')
    await user.click(within(form).getByRole('button', { name: 'Save details' }))
    expect(await within(form).findByText(SELF_SERVICE_MESSAGES.profileSaved)).toBeVisible()
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      title: '',
      first_name: 'Demo',
      last_name: 'Adams',
    })
  })

  it("shows no password form on a colleague's profile", async () => {
    stubApi({ [`GET /users/${jamie.id}`]: jamie })
    renderRoute(`/personnel/${jamie.id}`, { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Profile' })
    expect(screen.queryByRole('form', { name: 'Change password' })).toBeNull()
    expect(screen.queryByRole('form', { name: 'Your details' })).toBeNull()
  })
})
