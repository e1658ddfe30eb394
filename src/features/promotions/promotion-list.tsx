// Tabs are the portal's only: their styles load with the screens that show them, not with every page.

import { offerValueWords } from '#domain/offer-value.ts'
import { pointsText, signedPoints } from '#domain/points.ts'
import '@mantine/core/styles/Tabs.css'
import { Badge, Group, Stack, Table, Tabs, Text } from '@mantine/core'
import {
  PROMOTION_STATUS_LABELS,
  type PromotionDetail,
  type PromotionPage,
  type PromotionStatus,
} from '#domain/promotions.ts'
import { formatDate } from '#src/lib/format.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'

/** The tabs, in the order a manager looks at them. */
export const PROMOTION_TABS: readonly PromotionStatus[] = [
  'live',
  'scheduled',
  'draft',
  'ended',
  'archived',
]

export const STATUS_COLORS: Record<PromotionStatus, string> = {
  draft: 'gray',
  scheduled: 'blue',
  live: 'green',
  ended: 'orange',
  archived: 'dark',
}

const EMPTY: Record<PromotionStatus, string> = {
  live: 'No offer is live right now.',
  scheduled: 'No offer is waiting for its start.',
  draft: 'No draft: “New offer” starts one.',
  ended: 'No offer has ended yet.',
  archived: 'Nothing is archived.',
}

/** "12 Mar 2027 – 30 Mar 2027", "From 12 Mar 2027", "No dates". */
export function offerDates(offer: Pick<PromotionDetail, 'starts_at' | 'ends_at'>): string {
  if (offer.starts_at && offer.ends_at) {
    return `${formatDate(offer.starts_at)} – ${formatDate(offer.ends_at)}`
  }
  if (offer.starts_at) return `From ${formatDate(offer.starts_at)}`
  if (offer.ends_at) return `Until ${formatDate(offer.ends_at)}`
  return 'No dates'
}

/**
 * The offer's value in words, "$50.00 off HydraFacial", with the names of its
 * procedures from the catalogue; null for an offer without value.
 */
export function offerValue(
  offer: Pick<PromotionDetail, 'discount_cents' | 'discount_percent' | 'procedure_ids'>,
  procedureNames: ReadonlyMap<number, string> = new Map(),
): string | null {
  return offerValueWords(
    offer,
    offer.procedure_ids.map((id) => procedureNames.get(id) ?? `procedure ${id}`),
  )
}

/** "Free · +200 bonus", "300 points · no bonus". */
export function offerTerms(offer: { points_cost: number; bonus_points: number }): string {
  const cost = offer.points_cost === 0 ? 'Free' : pointsText(offer.points_cost)
  const bonus = offer.bonus_points === 0 ? 'no bonus' : `${signedPoints(offer.bonus_points)} bonus`
  return `${cost} · ${bonus}`
}

/**
 * The practice's offers in tabs by status (the tab is in the address), a page at a time: each
 * offer's title (to its page), dates, cost and bonus, and how many claimed and redeemed it.
 */
export function PromotionList({
  status,
  page,
  procedureNames,
  onTab,
  onPage,
}: {
  status: PromotionStatus
  page: PromotionPage
  /** The catalogue's procedure names, for each offer's value. */
  procedureNames?: ReadonlyMap<number, string>
  onTab: (status: PromotionStatus) => void
  onPage: (page: number) => void
}) {
  return (
    <Tabs
      value={status}
      onChange={(next) => next && onTab(next as PromotionStatus)}
      keepMounted={false}
    >
      <Tabs.List>
        {PROMOTION_TABS.map((tab) => (
          <Tabs.Tab key={tab} value={tab}>
            {PROMOTION_STATUS_LABELS[tab]}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {PROMOTION_TABS.map((tab) => (
        <Tabs.Panel key={tab} value={tab} pt="md">
          {page.data.length === 0 ? (
            <EmptyNote>{EMPTY[tab]}</EmptyNote>
          ) : (
            <Stack gap="md">
              <TableScroll label={`${PROMOTION_STATUS_LABELS[tab]} offers`} minWidth={680}>
                <Table striped verticalSpacing="sm">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Offer</Table.Th>
                      <Table.Th>Dates</Table.Th>
                      <Table.Th>Cost and bonus</Table.Th>
                      <Table.Th>Claimed</Table.Th>
                      <Table.Th>Redeemed</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {page.data.map((offer) => (
                      <Table.Tr key={offer.id}>
                        <Table.Td data-label="Offer">
                          <Group gap="xs" wrap="nowrap">
                            <AnchorLink
                              to="/promotions/$promotionId"
                              params={{ promotionId: String(offer.id) }}
                              fw={500}
                            >
                              {offer.title}
                            </AnchorLink>
                            {offer.code && (
                              <Badge variant="outline" color="gray" size="sm">
                                Code
                              </Badge>
                            )}
                          </Group>
                        </Table.Td>
                        <Table.Td data-label="Dates">{offerDates(offer)}</Table.Td>
                        <Table.Td data-label="Cost and bonus">
                          {[offerValue(offer, procedureNames), offerTerms(offer)]
                            .filter(Boolean)
                            .join(' · ')}
                        </Table.Td>
                        <Table.Td data-label="Claimed">
                          {offer.funnel.claimed.toLocaleString('en-US')}
                        </Table.Td>
                        <Table.Td data-label="Redeemed">
                          {offer.funnel.redeemed.toLocaleString('en-US')}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </TableScroll>
              <Group justify="space-between" wrap="wrap">
                <Text size="sm" c="dimmed">
                  {page.total.toLocaleString('en-US')} {page.total === 1 ? 'offer' : 'offers'}
                </Text>
                <ListPagination list={page} onPage={onPage} />
              </Group>
            </Stack>
          )}
        </Tabs.Panel>
      ))}
    </Tabs>
  )
}
