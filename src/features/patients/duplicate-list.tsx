import { Badge, Button, Group, Stack, Table, Text } from '@mantine/core'
import type { DuplicatePage, DuplicatePair, DuplicatePatient } from '#domain/patient-merge.ts'
import { formatPhone } from '#domain/phone.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { CardList } from '#src/ui/card-list.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'

const REASON_LABELS = { phone: 'Same phone', email: 'Same e-mail' } as const

const fullName = (p: DuplicatePatient) => `${p.first_name} ${p.last_name}`

function Person({ patient }: { patient: DuplicatePatient }) {
  return (
    <Stack gap={2} miw={0}>
      <AnchorLink to="/patients/$patientId" params={{ patientId: String(patient.id) }} fw={600}>
        {fullName(patient)}
      </AnchorLink>
      <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {[formatPhone(patient.phone), patient.email].filter(Boolean).join(' · ') ||
          'No contact details'}
      </Text>
      <Text size="sm" c="dimmed">
        {patient.points.toLocaleString('en-US')} points
      </Text>
    </Stack>
  )
}

function Reasons({ pair }: { pair: DuplicatePair }) {
  return (
    <Group gap={6}>
      {pair.reasons.map((reason) => (
        <Badge key={reason} variant="light" color="glow">
          {REASON_LABELS[reason]}
        </Badge>
      ))}
    </Group>
  )
}

/** "Merge…" for one pair, named after both patients (in the table and on the small screens' cards). */
function MergeButton({
  pair,
  onMerge,
}: {
  pair: DuplicatePair
  onMerge: (pair: DuplicatePair) => void
}) {
  return (
    <Button
      variant="default"
      size="xs"
      aria-label={`Merge ${fullName(pair.first)} and ${fullName(pair.second)}…`}
      onClick={() => onMerge(pair)}
    >
      Merge…
    </Button>
  )
}

/**
 * The possible duplicates: pairs of active patients who share a phone or an e-mail, as
 * the server found them when the page loaded, each with "Merge…". A table from 768 px, stacked
 * cards below it.
 */
export function DuplicateList({
  page,
  onPage,
  onMerge,
}: {
  page: DuplicatePage
  onPage: (page: number) => void
  onMerge: (pair: DuplicatePair) => void
}) {
  if (page.total === 0) {
    return (
      <EmptyNote>
        No possible duplicates: no two active patients share a phone number or an e-mail.
      </EmptyNote>
    )
  }
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed" role="status">
        {page.total === 1
          ? '1 pair of patients shares a phone number or an e-mail.'
          : `${page.total.toLocaleString('en-US')} pairs of patients share a phone number or an e-mail.`}
      </Text>
      <Table visibleFrom="sm" striped verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Patient</Table.Th>
            <Table.Th>Possible duplicate</Table.Th>
            <Table.Th>Shared</Table.Th>
            <Table.Th ta="right">Action</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page.data.map((pair) => (
            <Table.Tr key={`${pair.first.id}-${pair.second.id}`}>
              <Table.Td>
                <Person patient={pair.first} />
              </Table.Td>
              <Table.Td>
                <Person patient={pair.second} />
              </Table.Td>
              <Table.Td>
                <Reasons pair={pair} />
              </Table.Td>
              <Table.Td ta="right">
                <MergeButton pair={pair} onMerge={onMerge} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <CardList items={page.data} itemKey={(pair) => `${pair.first.id}-${pair.second.id}`}>
        {(pair) => (
          <Stack gap="sm">
            <Person patient={pair.first} />
            <Person patient={pair.second} />
            <Group justify="space-between" wrap="nowrap">
              <Reasons pair={pair} />
              <MergeButton pair={pair} onMerge={onMerge} />
            </Group>
          </Stack>
        )}
      </CardList>
      <ListPagination list={page} onPage={onPage} />
    </Stack>
  )
}
