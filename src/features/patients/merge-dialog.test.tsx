import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import type { MergeAnswer, MergePreview } from '#domain/patient-merge.ts'
import type { Patient } from '#domain/practice-data.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import { MergeDialog, type MergeSide } from './merge-dialog.tsx'

const patient = (id: number, first: string, points: number): Patient => ({
  id,
  practice_id: 1,
  first_name: first,
  last_name: 'Anderson',
  email: null,
  phone: '+14085554743',
  email_subscription: true,
  sms_subscription: false,
  birth_date: null,
  converted: false,
  points,
  archived: false,
  last_visit_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  merged_into_id: null,
})

const MARILYN: MergeSide = { id: 7, name: 'Marilyn Anderson', detail: '(408) 555-4743' }
const MARI: MergeSide = { id: 9, name: 'Mari Anderson', detail: 'mari@example.com' }

const PREVIEW: MergePreview = {
  kept: patient(9, 'Mari', 1200),
  merged: patient(7, 'Marilyn', 350),
  moves: { ledger_entries: 3, visits: 1, appointments: 2, claims: 1, offers_sent: 0, other: 4 },
  balance: 1550,
  fills: ['phone'],
  email_subscription: true,
  sms_subscription: false,
}

const ANSWER: MergeAnswer = {
  id: 1,
  kept: { ...patient(9, 'Mari', 1550), phone: '+14085554743' },
  merged: { ...patient(7, 'Marilyn', 0), archived: true, merged_into_id: 9 },
  moved: PREVIEW.moves,
  created_at: '2026-11-26T06:00:00.000Z',
  replayed: false,
}

function show(second?: MergeSide) {
  const calls = {
    searchPatients: vi.fn(async () => [{ id: MARI.id, label: 'Mari Anderson · mari@example.com' }]),
    preview: vi.fn(async () => PREVIEW),
    merge: vi.fn(async () => ANSWER),
    onOpenKept: vi.fn(),
    onClose: vi.fn(),
  }
  const view = renderWithProviders(
    <MergeDialog
      opened
      first={MARILYN}
      second={second}
      searchPatients={calls.searchPatients}
      preview={calls.preview}
      merge={calls.merge}
      onOpenKept={calls.onOpenKept}
      onClose={calls.onClose}
    />,
  )
  return { ...view, calls }
}

describe('the merge dialog: choose → preview → confirm → done', () => {
  it('from a profile: finds the other patient, keeps the one chosen, shows what moves, merges once', async () => {
    const { user, calls } = show()
    const dialog = await screen.findByRole('dialog', { name: 'Merge patients' })
    const picker = within(dialog).getByRole('combobox', { name: 'Other patient' })
    await waitFor(() => expect(picker).toHaveFocus())

    await user.click(within(dialog).getByRole('button', { name: 'Preview merge' }))
    expect(await within(dialog).findByText('Please choose the other patient.')).toBeVisible()
    expect(calls.preview).not.toHaveBeenCalled()

    await user.type(picker, 'Mari')
    await user.click(
      await screen.findByRole('option', { name: 'Mari Anderson · mari@example.com' }),
    )
    expect(calls.searchPatients).toHaveBeenCalledWith('Mari')
    const keep = within(dialog).getByRole('radiogroup', { name: /Which record do you keep\?/ })
    await user.click(within(keep).getByRole('radio', { name: /Mari Anderson/ }))
    await user.click(within(dialog).getByRole('button', { name: 'Preview merge' }))

    expect(calls.preview).toHaveBeenCalledWith(9, 7)
    expect(await within(dialog).findByText('Marilyn Anderson into Mari Anderson')).toBeVisible()
    for (const line of [
      '3 ledger entries',
      '1 visit',
      '2 appointments',
      '1 claimed offer',
      '4 other records',
    ]) {
      expect(within(dialog).getByText(line)).toBeVisible()
    }
    expect(within(dialog).queryByText(/offers sent/)).not.toBeInTheDocument()
    expect(within(dialog).getByText('1,550 points')).toBeVisible()
    expect(within(dialog).getByText('Filled in from Marilyn Anderson: phone.')).toBeVisible()
    expect(
      within(dialog).getByText(/Consent after the merge: e-mail yes, text messages no\./),
    ).toBeVisible()

    await user.click(within(dialog).getByRole('button', { name: 'Continue' }))
    expect(
      within(dialog).getByText(
        "Merge Marilyn Anderson into Mari Anderson? Marilyn Anderson's record will be archived with a link to Mari Anderson. This cannot be undone.",
      ),
    ).toBeVisible()
    expect(calls.merge).not.toHaveBeenCalled()
    await user.click(within(dialog).getByRole('button', { name: 'Merge patients' }))

    expect(calls.merge).toHaveBeenCalledTimes(1)
    expect(calls.merge).toHaveBeenCalledWith(9, 7)
    expect(
      await within(dialog).findByText(
        'Marilyn Anderson was merged into Mari Anderson. Mari Anderson now has 1,550 points.',
      ),
    ).toBeVisible()
    await user.click(within(dialog).getByRole('button', { name: 'Open Mari Anderson' }))
    expect(calls.onOpenKept).toHaveBeenCalledWith(9)
  })

  it('from a duplicates pair: the choice of the record to keep comes first, and a refusal is shown as the server said it', async () => {
    const { user, calls } = show(MARI)
    calls.preview.mockRejectedValueOnce(
      new Error('Mari Anderson is archived: restore them before merging.'),
    )
    const dialog = await screen.findByRole('dialog', { name: 'Merge patients' })
    expect(
      within(dialog).queryByRole('combobox', { name: 'Other patient' }),
    ).not.toBeInTheDocument()
    expect(
      within(dialog).getByText(
        'Marilyn Anderson and Mari Anderson may be the same person. Merging keeps one record and moves everything of the other onto it.',
      ),
    ).toBeVisible()
    const first = within(dialog).getByRole('radio', { name: /Marilyn Anderson/ })
    await waitFor(() => expect(first).toHaveFocus())
    expect(first).toBeChecked()

    await user.click(within(dialog).getByRole('button', { name: 'Preview merge' }))
    expect(calls.preview).toHaveBeenCalledWith(7, 9)
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Mari Anderson is archived: restore them before merging.',
    )
    expect(calls.merge).not.toHaveBeenCalled()

    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(calls.onClose).toHaveBeenCalled()
  })
})
