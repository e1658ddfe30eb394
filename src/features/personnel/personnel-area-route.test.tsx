import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { PersonnelInvitation } from '#domain/personnel.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import { demoStaffMember } from '#src/lib/testing/fixtures.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

const staff: StaffMember[] = [
  { ...demoStaffMember, title: 'Dr.' },
  {
    id: 6,
    practice_id: 1,
    email: 'staff@example.com',
    title: null,
    first_name: 'Sam',
    last_name: 'Rivera',
    position: 'Staff',
    access_rights: 'Staff',
    image_path: null,
  },
]

function invitation(
  id: string,
  email: string,
  status: PersonnelInvitation['status'],
): PersonnelInvitation {
  return {
    id,
    email,
    title: null,
    first_name: 'Jordan',
    last_name: email.split('@')[0]?.replace(/\W/g, '') ?? 'Lee',
    position: 'Provider',
    status,
    expires_at: '2026-06-15T00:00:00.000Z',
    created_at: '2026-06-01T00:00:00.000Z',
  }
}

const invitations = [
  invitation('inv-1', 'pending@example.com', 'pending'),
  invitation('inv-2', 'expired@example.com', 'expired'),
  invitation('inv-3', 'revoked@example.com', 'revoked'),
  invitation('inv-4', 'used@example.com', 'used'),
]

const staffSession = {
  ...demoSession,
  user: { ...demoSession.user, id: 6, email: 'staff@example.com', access_rights: 'Staff' as const },
}

function rowOf(email: string): HTMLElement {
  const row = screen.getByText(email).closest('tr')
  if (!row) throw new Error(`no row for ${email}`)
  return row
}

function count(calls: FakeCall[], method: string, path: string) {
  return calls.filter((c) => c.method === method && c.path === path).length
}

describe('the Personnel area', () => {
  it('lists staff as active and open invitations as invited, expired or revoked', async () => {
    stubApi({ 'GET /users': staff, 'GET /personnel': invitations })
    renderRoute('/personnel', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    expect(within(rowOf('demo@example.com')).getByText('active')).toBeVisible()
    expect(within(rowOf('staff@example.com')).getByText('active')).toBeVisible()
    expect(within(rowOf('pending@example.com')).getByText('invited')).toBeVisible()
    expect(within(rowOf('expired@example.com')).getByText('expired')).toBeVisible()
    expect(within(rowOf('revoked@example.com')).getByText('revoked')).toBeVisible()
    expect(screen.queryByText('used@example.com')).toBeNull()
    expect(screen.getByRole('link', { name: 'Dr. Demo Admin' })).toHaveAttribute(
      'href',
      '/personnel/5',
    )
    for (const email of ['pending@example.com', 'expired@example.com']) {
      expect(
        within(rowOf(email)).getByRole('button', { name: `Resend invitation to ${email}` }),
      ).toBeEnabled()
      expect(
        within(rowOf(email)).getByRole('button', { name: `Revoke invitation to ${email}` }),
      ).toBeEnabled()
    }
    expect(within(rowOf('revoked@example.com')).queryByRole('button')).toBeNull()
    expect(screen.getByRole('form', { name: 'Invite' })).toBeVisible()
  })

  it('shows the list without invite controls to staff who are not Admin', async () => {
    stubApi({
      'GET /users': staff,
      'GET /personnel': invitations.map(({ id: _id, ...rest }) => rest),
    })
    renderRoute('/personnel', { session: staffSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    expect(within(rowOf('pending@example.com')).getByText('invited')).toBeVisible()
    expect(screen.queryByRole('form', { name: 'Invite' })).toBeNull()
    expect(screen.queryByRole('button', { name: /Resend|Revoke|Invite/ })).toBeNull()
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull()
  })

  it('invites a person, says so, and reloads the list', async () => {
    let listed = invitations.slice(0, 1)
    const calls = stubApi({
      'GET /users': staff,
      'GET /personnel': () => listed,
      'POST /personnel': (call: FakeCall) => {
        const created = invitation('inv-9', (call.body as { email: string }).email, 'pending')
        listed = [...listed, created]
        return new Response(JSON.stringify(created), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        })
      },
    })
    const { user } = renderRoute('/personnel', { session: demoSession })
    const form = await screen.findByRole('form', { name: 'Invite' })
    await user.type(within(form).getByLabelText(/^Email/), 'new.person@example.com')
    await user.type(within(form).getByLabelText(/^First name/), 'New')
    await user.type(within(form).getByLabelText(/^Last name/), 'Person')
    await user.click(within(form).getByRole('combobox', { name: /^Position/ }))
    await user.click(await screen.findByRole('option', { name: 'Staff' }))
    await user.click(within(form).getByRole('button', { name: 'Invite' }))

    expect(await screen.findByText('Invitation sent to new.person@example.com.')).toBeVisible()
    expect(calls.find((c) => c.method === 'POST' && c.path === '/personnel')?.body).toEqual({
      email: 'new.person@example.com',
      first_name: 'New',
      last_name: 'Person',
      position: 'Staff',
      title: null,
    })
    await waitFor(() => expect(screen.getByText('new.person@example.com')).toBeVisible())
    expect(count(calls, 'GET', '/personnel')).toBeGreaterThanOrEqual(2)
    // A fresh form for the next person.
    expect(
      within(screen.getByRole('form', { name: 'Invite' })).getByLabelText(/^Email/),
    ).toHaveValue('')
  })

  it('checks the invite form with the spec messages before sending', async () => {
    const calls = stubApi({ 'GET /users': staff, 'GET /personnel': [] })
    const { user } = renderRoute('/personnel', { session: demoSession })
    const form = await screen.findByRole('form', { name: 'Invite' })
    await user.type(within(form).getByLabelText(/^First name/), 'N')
    await user.click(within(form).getByRole('button', { name: 'Invite' }))
    expect(await within(form).findByText('Please fill email field')).toBeVisible()
    expect(within(form).getByText('First name should contain minimum 2 characters')).toBeVisible()
    expect(within(form).getByText('Please fill last name field')).toBeVisible()
    expect(within(form).getByText('Please fill position field')).toBeVisible()
    expect(count(calls, 'POST', '/personnel')).toBe(0)
  })

  it("shows the server's message when the invitation fails", async () => {
    stubApi({
      'GET /users': staff,
      'GET /personnel': [],
      'POST /personnel': apiError(409, 'A person with this e-mail already has an account.'),
    })
    const { user } = renderRoute('/personnel', { session: demoSession })
    const form = await screen.findByRole('form', { name: 'Invite' })
    await user.type(within(form).getByLabelText(/^Email/), 'staff@example.com')
    await user.type(within(form).getByLabelText(/^First name/), 'Sam')
    await user.type(within(form).getByLabelText(/^Last name/), 'Rivera')
    await user.click(within(form).getByRole('combobox', { name: /^Position/ }))
    await user.click(await screen.findByRole('option', { name: 'Provider' }))
    await user.click(within(form).getByRole('button', { name: 'Invite' }))
    const message = await screen.findByText('A person with this e-mail already has an account.')
    expect(message.closest('[role="alert"]')).not.toBeNull()
    expect(within(form).getByLabelText(/^Email/)).toHaveValue('staff@example.com')
  })

  it('resends and revokes pending invitations', async () => {
    const calls = stubApi({
      'GET /users': staff,
      'GET /personnel': invitations,
      'POST /personnel/inv-1/resend': invitations[0],
      'DELETE /personnel/inv-2': { ...invitations[1], status: 'revoked' },
    })
    const { user } = renderRoute('/personnel', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    await user.click(
      screen.getByRole('button', { name: 'Resend invitation to pending@example.com' }),
    )
    expect(await screen.findByText('Invitation sent again to pending@example.com.')).toBeVisible()
    await user.click(
      screen.getByRole('button', { name: 'Revoke invitation to expired@example.com' }),
    )
    // Revoking asks first.
    await user.click(await screen.findByRole('button', { name: 'Revoke invitation' }))
    expect(await screen.findByText('Invitation to expired@example.com revoked.')).toBeVisible()
    expect(count(calls, 'POST', '/personnel/inv-1/resend')).toBe(1)
    expect(count(calls, 'DELETE', '/personnel/inv-2')).toBe(1)
  })

  it('still lists the staff when the invitations cannot be read', async () => {
    stubApi({ 'GET /users': staff, 'GET /personnel': apiError(500, 'The database is resting.') })
    renderRoute('/personnel', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    expect(rowOf('staff@example.com')).toBeVisible()
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Invitations could not be loaded: The database is resting.',
    )
  })
})
