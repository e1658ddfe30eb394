import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { type ReactNode, useState } from 'react'
import type { PatientPromotion } from '#domain/practice-data.ts'
import type { PromotionDetail } from '#domain/promotions.ts'
import { offerTerms } from '#src/features/promotions/promotion-list.tsx'
import { formatDate, formatDateTime } from '#src/lib/format.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { ButtonLink } from '#src/ui/links.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'

/** How each status of a claim reads, and its colour. */
const CLAIM_LABELS: Record<PatientPromotion['status'], { label: string; color: string }> = {
  claimed: { label: 'Claimed', color: 'glow' },
  redeemed: { label: 'Redeemed', color: 'green' },
  expired: { label: 'Expired', color: 'gray' },
}

/** What {@link ClaimCells} shows of a claim. */
type ClaimTimes = {
  status: PatientPromotion['status']
  claimed_at?: string | null | undefined
  redeemed_at?: string | null | undefined
  ends_at?: string | null | undefined
}

/**
 * A claim's status, when it was claimed, and when it was redeemed or ends (ended, once expired):
 * the cells the patient's offers and an offer's claims share.
 */
function ClaimCells({ claim }: { claim: ClaimTimes }) {
  return (
    <>
      <Table.Td data-label="Status">
        <Badge color={CLAIM_LABELS[claim.status].color} variant="light">
          {CLAIM_LABELS[claim.status].label}
        </Badge>
      </Table.Td>
      <Table.Td data-label="Claimed">
        {claim.claimed_at ? formatDateTime(claim.claimed_at) : '—'}
      </Table.Td>
      <Table.Td data-label="Redeemed or ends">
        {claim.redeemed_at
          ? formatDateTime(claim.redeemed_at)
          : claim.ends_at
            ? `${claim.status === 'expired' ? 'Ended' : 'Ends'} ${formatDate(claim.ends_at)}`
            : '—'}
      </Table.Td>
    </>
  )
}

/**
 * A table of claims: a first column that names the claim's `subject` (the offer, or the patient
 * who claimed it), then its status and times. The patient's offers and an offer's claims use it.
 */
export function ClaimsTable<C extends ClaimTimes>({
  label,
  subject,
  claims,
  rowKey,
  renderSubject,
}: {
  /** The accessible name of the scrolling table. */
  label: string
  subject: string
  claims: readonly C[]
  rowKey: (claim: C) => string | number
  renderSubject: (claim: C) => ReactNode
}) {
  return (
    <TableScroll label={label} minWidth={560}>
      <Table striped verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{subject}</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Claimed</Table.Th>
            <Table.Th>Redeemed or ends</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {claims.map((claim) => (
            <Table.Tr key={rowKey(claim)}>
              <Table.Td data-label={subject}>{renderSubject(claim)}</Table.Td>
              <ClaimCells claim={claim} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  )
}

/**
 * A patient's offers on the profile: the live offers staff can claim for them (with the code of
 * a code-only offer), and every claim with the terms it was claimed with. A claimed offer is
 * redeemed at checkout, which lists it for the patient.
 */
export function PatientOffers({
  patientId,
  claims,
  liveOffers,
  onClaim,
}: {
  patientId: number
  claims: PatientPromotion[]
  liveOffers: PromotionDetail[]
  onClaim: (promotionId: number, code: string | undefined) => Promise<string | undefined>
}) {
  const [chosen, setChosen] = useState<string | null>(null)
  const [code, setCode] = useState('')
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  const [done, setDone] = useState<string>()
  const offer = liveOffers.find((o) => String(o.id) === chosen)
  const open = claims.some((c) => c.status === 'claimed')

  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4">
            Promotions
          </Title>
          {open && (
            <ButtonLink to="/checkout" search={{ patientId }} variant="light">
              Redeem at checkout
            </ButtonLink>
          )}
        </Group>
        {liveOffers.length === 0 ? (
          <Text c="dimmed">No offer is live right now.</Text>
        ) : (
          <form
            noValidate
            onSubmit={async (event) => {
              event.preventDefault()
              setDone(undefined)
              if (!offer) {
                setFailure('Choose an offer to claim.')
                return
              }
              setBusy(true)
              const refusal = await onClaim(offer.id, offer.code ? code : undefined)
              setBusy(false)
              setFailure(refusal)
              if (!refusal) {
                setDone(`${offer.title} is claimed for this patient.`)
                setChosen(null)
                setCode('')
              }
            }}
          >
            <Group align="flex-end" gap="sm" wrap="wrap">
              <Select
                label="Live offer"
                placeholder="Choose an offer"
                data={liveOffers.map((o) => ({
                  value: String(o.id),
                  label: `${o.title} (${offerTerms(o)})`,
                }))}
                value={chosen}
                onChange={(value) => {
                  setChosen(value)
                  setFailure(undefined)
                }}
                error={failure && !offer ? failure : undefined}
                style={{ flex: '1 1 16rem' }}
                miw={0}
              />
              {offer?.code && (
                <TextInput
                  label="Offer code"
                  description="The code the patient was given."
                  value={code}
                  onChange={(event) => setCode(event.currentTarget.value)}
                  style={{ flex: '1 1 10rem' }}
                />
              )}
              <Button type="submit" loading={busy}>
                Claim for patient
              </Button>
            </Group>
            {failure && offer && (
              <Alert color="red" role="alert" mt="sm">
                {failure}
              </Alert>
            )}
            {done && (
              <Alert color="green" role="status" mt="sm">
                {done}
              </Alert>
            )}
          </form>
        )}
        {claims.length === 0 ? (
          <EmptyNote>This patient has not claimed an offer yet.</EmptyNote>
        ) : (
          <ClaimsTable
            label="The patient's offers"
            subject="Offer"
            claims={claims}
            rowKey={(claim) => claim.id ?? `${claim.promotion_id}-${claim.claimed_at}`}
            renderSubject={(claim) =>
              claim.title ?? claim.promotion?.title ?? `Offer #${claim.promotion_id}`
            }
          />
        )}
      </Stack>
    </Card>
  )
}
