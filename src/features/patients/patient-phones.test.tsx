/**
 * Phones in one form: the server stores E.164 ("+14085554743"); every screen shows it
 * as people write it ("(408) 555-4743"), the edit form starts from that writing, and a number
 * without its area code is refused before anything is sent.
 */
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PATIENT_PHONE_MESSAGE } from '#domain/practice-data.ts'
import { patientChoice } from '#src/ui/patient-picker.tsx'
import { demoSession } from '#tests/support/demo-session.ts'
import { type FakeRoutes, stubApi } from '#tests/support/fake-api.ts'
import { renderRoute } from '#tests/support/render.tsx'

const patient = (id: number, first: string, last: string, phone: string | null) => ({
  id,
  practice_id: 1,
  first_name: first,
  last_name: last,
  email: `${first.toLowerCase()}@example.com`,
  phone,
  email_subscription: true,
  sms_subscription: false,
  birth_date: null,
  converted: false,
  points: 0,
  archived: false,
  last_visit_at: null,
  created_at: '2025-01-02T10:00:00.000Z',
})

const MARILYN = patient(1, 'Marilyn', 'Anderson', '+14085554743')
const PRIYA = patient(2, 'Priya', 'Evans', '+442079460958')

function api(): FakeRoutes {
  return {
    'GET /patients': { data: [MARILYN, PRIYA], total: 2, page: 1, pageSize: 25 },
    'GET /patients/1': MARILYN,
    'GET /patients/1/ledger': {
      data: [],
      total: 0,
      page: 1,
      pageSize: 10,
      balance: 0,
      balance_value_cents: 0,
      expiring_soon: [],
    },
    'GET /patients/promotions/1': [],
    'GET /promotions': { data: [], total: 0, page: 1, pageSize: 100 },
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('patient phones on screen', () => {
  it('lists each stored E.164 phone formatted for its country', async () => {
    stubApi(api())
    renderRoute('/patients', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Patients' })
    const [, marilyn, priya] = screen.getAllByRole('row') as HTMLElement[]
    expect(within(marilyn as HTMLElement).getByText('(408) 555-4743')).toBeInTheDocument()
    expect(within(priya as HTMLElement).getByText('+44 20 7946 0958')).toBeInTheDocument()
    expect(screen.queryByText('+14085554743')).not.toBeInTheDocument()
  })

  it('shows the profile phone formatted, edits from that writing and refuses a number without area code', async () => {
    const calls = stubApi({
      ...api(),
      'PUT /patients/1': { ...MARILYN, phone: '+14085550199' },
    })
    renderRoute('/patients/1', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Marilyn Anderson' })
    expect(screen.getByText('(408) 555-4743')).toBeInTheDocument()

    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Edit details' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit details' })
    const phone = within(dialog).getByRole('textbox', { name: 'Phone' })
    expect(phone).toHaveValue('(408) 555-4743')

    await user.clear(phone)
    await user.type(phone, '555-0199')
    await user.click(within(dialog).getByRole('button', { name: /save/i }))
    expect(await within(dialog).findByText(PATIENT_PHONE_MESSAGE)).toBeInTheDocument()
    expect(calls.some((c) => c.method === 'PUT')).toBe(false)

    await user.clear(phone)
    await user.type(phone, '408 555 0199')
    await user.click(within(dialog).getByRole('button', { name: /save/i }))
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true))
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ phone: '408 555 0199' })
  })

  it('offers a found patient in the pickers (appointments, checkout) with the phone formatted', () => {
    expect(patientChoice(MARILYN)).toEqual({ id: 1, label: 'Marilyn Anderson · (408) 555-4743' })
    expect(patientChoice(PRIYA).label).toBe('Priya Evans · +44 20 7946 0958')
    expect(patientChoice({ ...MARILYN, phone: null }).label).toBe('Marilyn Anderson')
  })
})
