import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { AppointmentDetail } from '#domain/appointments.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { AppointmentsView, nextechStatusInWords } from './appointments-view.tsx'

function appointment(id: number, changes: Partial<AppointmentDetail>): AppointmentDetail {
  return {
    id,
    practice_id: 1,
    patient_id: id,
    procedure_id: null,
    starts_at: '2026-06-01T15:00:00.000Z',
    notes: '',
    status: 'scheduled',
    nextech_status: null,
    patient: { id, first_name: 'Grace', last_name: 'Hopper', phone: null },
    procedure: null,
    ...changes,
  }
}

const noAction = async () => undefined

describe('Appointments: the status Nextech gives an appointment', () => {
  it('says each status in words', () => {
    expect(nextechStatusInWords('noshow')).toBe('No-show')
    expect(nextechStatusInWords('booked')).toBe('Booked')
    expect(nextechStatusInWords('arrived')).toBe('Arrived')
    expect(nextechStatusInWords('fulfilled')).toBe('Fulfilled')
    expect(nextechStatusInWords('entered-in-error')).toBe('Entered in error')
    expect(nextechStatusInWords('waitlist')).toBe('Waitlist')
  })

  it('marks an appointment from Nextech with its status, and only those', async () => {
    renderInRouter(
      () => (
        <AppointmentsView
          day="2026-06-01"
          today="2026-06-01"
          mode="day"
          appointments={[
            appointment(1, { nextech_status: 'noshow' }),
            appointment(2, {
              starts_at: '2026-06-01T16:00:00.000Z',
              patient: { id: 2, first_name: 'Ada', last_name: 'Lovelace', phone: null },
            }),
          ]}
          procedures={[]}
          searchPatients={async () => []}
          onNavigate={() => {}}
          onCreate={noAction}
          onReschedule={noAction}
          onCancel={noAction}
          onDelete={noAction}
        />
      ),
      '/appointments',
    )
    const [fromNextech, madeHere] = await screen.findAllByRole('article')
    expect(within(fromNextech as HTMLElement).getByText('Nextech · No-show')).toBeVisible()
    expect(within(madeHere as HTMLElement).queryByText(/^Nextech/)).toBeNull()
  })
})
