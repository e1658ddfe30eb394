import { Card, Group, SegmentedControl, Stack, Text, Title } from '@mantine/core'
import type { ClaimStatus, OfferClaimsPage } from '#domain/promotions.ts'
import { ClaimsTable } from '#src/features/promotions/patient-offers.tsx'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'

const FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'claimed', label: 'Not yet used' },
  { value: 'redeemed', label: 'Redeemed' },
  { value: 'expired', label: 'Expired' },
]

const EMPTY: Record<ClaimStatus | 'all', string> = {
  all: 'Nobody has claimed this offer yet.',
  claimed: 'No open claims: every claim was redeemed or has expired.',
  redeemed: 'Nobody has redeemed this offer yet.',
  expired: 'No claim of this offer has expired.',
}

/**
 * Who claimed an offer, newest first: each patient (a link to their profile) and where their
 * claim stands. "Not yet used" is the desk's list of whom to call before the offer ends.
 */
export function OfferClaims({
  claims,
  status,
  pageSize,
  onStatus,
  onPage,
}: {
  claims: OfferClaimsPage
  status: ClaimStatus | undefined
  pageSize: number
  onStatus: (status: ClaimStatus | undefined) => void
  onPage: (page: number) => void
}) {
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="offer-claims-title">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={2} size="h4" id="offer-claims-title">
            Who claimed it
          </Title>
          <SegmentedControl
            aria-label="Show claims"
            size="xs"
            data={FILTERS}
            value={status ?? 'all'}
            onChange={(value) => onStatus(value === 'all' ? undefined : (value as ClaimStatus))}
          />
        </Group>
        {claims.total === 0 ? (
          <EmptyNote>{EMPTY[status ?? 'all']}</EmptyNote>
        ) : (
          <>
            <Text size="sm" c="dimmed">
              {claims.total === 1 ? '1 claim' : `${claims.total.toLocaleString('en-US')} claims`}
            </Text>
            <ClaimsTable
              label="Who claimed the offer"
              subject="Patient"
              claims={claims.data}
              rowKey={(claim) => claim.id}
              renderSubject={(claim) => (
                <>
                  <AnchorLink
                    to="/patients/$patientId"
                    params={{ patientId: String(claim.patient_id) }}
                  >
                    {claim.patient_name}
                  </AnchorLink>
                  {claim.patient_archived && (
                    <Text span size="sm" c="dimmed">
                      {' '}
                      (archived)
                    </Text>
                  )}
                </>
              )}
            />
            <ListPagination
              list={{ total: claims.total, pageSize, page: claims.page }}
              onPage={onPage}
              itemLabel={(n) => `Claims page ${n}`}
            />
          </>
        )}
      </Stack>
    </Card>
  )
}
