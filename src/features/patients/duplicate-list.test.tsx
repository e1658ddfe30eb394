import { screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import type { DuplicatePage } from '#domain/patient-merge.ts'
import { renderInRouter } from '#tests/support/render.tsx'
import { DuplicateList } from './duplicate-list.tsx'

const person = (id: number, first: string, phone: string | null, email: string | null) => ({
  id,
  first_name: first,
  last_name: 'Anderson',
  phone,
  email,
  points: id * 100,
  created_at: '2026-01-01T00:00:00.000Z',
})

describe('the possible duplicates', () => {
  it('says so when no two active patients share a phone or an e-mail', async () => {
    const empty: DuplicatePage = { data: [], total: 0, page: 1, pageSize: 25 }
    renderInRouter(
      () => <DuplicateList page={empty} onPage={() => {}} onMerge={() => {}} />,
      '/patients/duplicates',
    )
    expect(
      await screen.findByText(
        'No possible duplicates: no two active patients share a phone number or an e-mail.',
      ),
    ).toBeVisible()
    expect(screen.queryByRole('button', { name: /Merge/ })).not.toBeInTheDocument()
  })

  it('lists each pair with what they share, the phone as written in its country, and offers Merge…', async () => {
    const pair = {
      first: person(3, 'Marilyn', '+14085554743', null),
      second: person(8, 'Mari', '+14085554743', 'mari@example.com'),
      reasons: ['phone' as const],
    }
    const onMerge = vi.fn()
    const { user } = renderInRouter(
      () => (
        <DuplicateList
          page={{ data: [pair], total: 1, page: 1, pageSize: 25 }}
          onPage={() => {}}
          onMerge={onMerge}
        />
      ),
      '/patients/duplicates',
    )
    expect(
      await screen.findByText('1 pair of patients shares a phone number or an e-mail.'),
    ).toBeVisible()
    expect(screen.getAllByText('Same phone')[0]).toBeInTheDocument()
    expect(screen.getAllByText('(408) 555-4743 · mari@example.com')[0]).toBeInTheDocument()
    const [button] = screen.getAllByRole('button', {
      name: 'Merge Marilyn Anderson and Mari Anderson…',
    })
    if (!button) throw new Error('no Merge button')
    await user.click(button)
    expect(onMerge).toHaveBeenCalledWith(pair)
  })
})
