import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { LedgerEntry, LedgerPage } from '#domain/ledger.ts'
import type { Patient } from '#domain/practice-data.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { PatientProfile } from './patient-profile.tsx'

const patient: Patient = {
  id: 3,
  practice_id: 1,
  first_name: 'Jane',
  last_name: 'Doe',
  email: 'jane@example.com',
  phone: null,
  email_subscription: true,
  sms_subscription: false,
  birth_date: null,
  converted: false,
  points: 12_345,
  archived: false,
  last_visit_at: null,
  created_at: '2026-01-05T10:00:00.000Z',
}

const earned: LedgerEntry = {
  id: 40,
  patient_id: 3,
  kind: 'earn',
  points: 1120,
  source_type: 'visit',
  source_id: 9,
  reason: null,
  expires_at: '2027-11-20T00:00:00.000Z',
  reverses_id: null,
  reversed_by: null,
  balance_after: 12_345,
  created_by: { id: 1, first_name: 'Alex', last_name: 'Lee' },
  created_at: '2026-11-20T10:00:00.000Z',
}

const ledger: LedgerPage = {
  data: [earned],
  total: 1,
  page: 1,
  pageSize: 25,
  balance: 12_345,
  balance_value_cents: 123_450,
  expiring_soon: [{ points: 2500, expires_at: '2026-12-20T00:00:00.000Z' }],
}

describe("a patient's points on the profile", () => {
  it('writes the balance, the history and the lots expiring soon with thousands separators', async () => {
    renderInRouter(
      () => (
        <PatientProfile
          patient={patient}
          ledger={ledger}
          can={{ adjust: true, archive: true }}
          onEdit={() => {}}
          onAdjust={async () => undefined}
          onReverse={async () => undefined}
          onArchive={async () => undefined}
          onLedgerPage={() => {}}
        />
      ),
      '/patients/3',
    )
    expect((await screen.findAllByText('Earned 1,120 points for a visit')).length).toBeGreaterThan(
      0,
    )
    expect(screen.getAllByText('+1,120').length).toBeGreaterThan(0)
    expect(screen.getAllByText('12,345').length).toBeGreaterThan(0)
    expect(screen.getByText('2,500 points on Dec 20, 2026')).toBeInTheDocument()
    expect(screen.queryByText(/\b1120\b/)).not.toBeInTheDocument()
  })
})
