import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { type PromotionDetail, withoutMoney } from '#domain/promotions.ts'
import { promotionDetail } from '#src/lib/testing/fixtures.ts'
import { renderWithProviders } from '#tests/support/render.tsx'
import { PromotionDetailView } from './promotion-detail.tsx'

const offer = promotionDetail({
  funnel: {
    sent: 10,
    claimed: 4,
    redeemed: 1,
    expired: 0,
    redemption_rate: 0.25,
    revenue_cents: 19_900,
  },
})

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
