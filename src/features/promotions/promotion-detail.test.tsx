import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { type PromotionDetail, withoutMoney } from '#domain/promotions.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import { PromotionDetailView } from './promotion-detail.tsx'

const offer: PromotionDetail = {
  id: 7,
  practice_id: 1,
  title: 'Spring glow',
  description: '',
  points_cost: 0,
  bonus_points: 0,
  points: 0,
  starts_at: null,
  ends_at: null,
  max_redemptions: null,
  per_patient_limit: 1,
  code: null,
  discount_cents: null,
  discount_percent: null,
  procedure_ids: [],
  status: 'live',
  published_at: '2026-11-01T00:00:00.000Z',
  ended_at: null,
  archived_at: null,
  created_at: '2026-11-01T00:00:00.000Z',
  funnel: {
    sent: 10,
    claimed: 4,
    redeemed: 1,
    expired: 0,
    redemption_rate: 0.25,
    revenue_cents: 19_900,
  },
}

const show = (shown: PromotionDetail) =>
  renderWithProviders(
    <PromotionDetailView
      offer={shown}
      canManage={false}
      onEdit={() => {}}
      onAction={async () => undefined}
    />,
  )

describe("an offer's funnel (Staff never see money)", () => {
  it('shows a Manager the revenue of the visits where it was redeemed', () => {
    show(withoutMoney(offer, true))
    expect(screen.getByText('Revenue')).toBeInTheDocument()
    expect(screen.getByText('$199.00')).toBeInTheDocument()
  })

  it('shows Staff, whose answer has no revenue, the counts without any money', () => {
    show(withoutMoney(offer, false))
    expect(screen.getByText('Redemption rate')).toBeInTheDocument()
    expect(screen.queryByText('Revenue')).not.toBeInTheDocument()
    expect(screen.queryByText(/\$/)).not.toBeInTheDocument()
    expect(screen.getByText('The rate is redeemed over claimed.')).toBeInTheDocument()
  })
})
