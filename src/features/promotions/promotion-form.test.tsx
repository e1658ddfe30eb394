import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { promotionDetail } from '#src/lib/testing/fixtures.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import {
  PromotionFormModal,
  type PromotionFormValues,
  promotionValues,
  toPromotionInput,
} from './promotion-form.tsx'

const PROCEDURES = [
  { id: 3, name: 'HydraFacial' },
  { id: 4, name: 'Glow Peel' },
]

function show(initial = promotionValues()) {
  const onSave = vi.fn(async (_values: PromotionFormValues) => undefined)
  const view = renderWithProviders(
    <PromotionFormModal
      opened
      title="New offer"
      submitLabel="Create draft"
      initial={initial}
      procedures={PROCEDURES}
      onClose={() => {}}
      onSave={onSave}
    />,
  )
  return { ...view, onSave }
}

describe("the offer's value in the editor", () => {
  it('makes "$50 off HydraFacial": an amount and its procedure', async () => {
    const { user, onSave } = show()
    await user.type(screen.getByLabelText(/^Title/), '$50 off HydraFacial')
    expect(screen.queryByLabelText('Amount off ($)')).not.toBeInTheDocument()
    await user.click(screen.getByRole('radio', { name: 'Amount off' }))
    await user.type(screen.getByLabelText('Amount off ($)'), '50')
    await user.click(screen.getByPlaceholderText('Any procedure'))
    await user.click(screen.getByRole('option', { name: 'HydraFacial' }))
    await user.click(screen.getByRole('button', { name: 'Create draft' }))
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1))
    const values = onSave.mock.calls[0]?.[0]
    if (!values) throw new Error('not saved')
    expect(toPromotionInput(values)).toMatchObject({
      title: '$50 off HydraFacial',
      discount_cents: 5000,
      discount_percent: null,
      procedure_ids: [3],
    })
  })

  it('says a missing percentage next to the field, and sends nothing', async () => {
    const { user, onSave } = show()
    await user.type(screen.getByLabelText(/^Title/), 'Too generous')
    await user.click(screen.getByRole('radio', { name: 'Percent off' }))
    expect(screen.getByLabelText('Percentage off (%)')).toHaveValue('')
    await user.click(screen.getByRole('button', { name: 'Create draft' }))
    expect(
      await screen.findByText('Enter the percentage off, a whole number from 1 to 100.'),
    ).toBeInTheDocument()
    expect(onSave).not.toHaveBeenCalled()
  })

  it('opens an offer with value as it was saved, and None sends no value', () => {
    const values = promotionValues(
      promotionDetail({
        id: 1,
        title: '20% off',
        discount_percent: 20,
        procedure_ids: [4],
        status: 'draft',
        published_at: null,
      }),
    )
    expect(values).toMatchObject({
      discount: 'percent',
      discount_percent: 20,
      procedure_ids: ['4'],
    })
    expect(toPromotionInput({ ...values, discount: 'none' })).toMatchObject({
      discount_cents: null,
      discount_percent: null,
      procedure_ids: [],
    })
  })
})
