import { Badge, Group, Select, Stack, Table, Text } from '@mantine/core'
import {
  MEMBERSHIP_STATUSES,
  type Membership,
  type MembershipStatus,
  money,
  STATUS_LABELS,
} from '#domain/memberships.ts'
import { formatDate } from '#src/lib/format.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'
import { STATUS_COLORS } from './membership-texts.ts'

/** A status badge, coloured so that past due and unpaid stand out. */
export function StatusBadge({ status }: { status: MembershipStatus }) {
  return (
    <Badge color={STATUS_COLORS[status]} variant={status === 'unpaid' ? 'filled' : 'light'}>
      {STATUS_LABELS[status]}
    </Badge>
  )
}

/** "12 Dec 2026 · $99.00", or "None" when no charge will come. */
export function nextPayment(membership: Membership): string {
  if (!membership.next_payment_attempt_at) return 'None'
  const amount = membership.next_plan?.price_cents ?? membership.plan.price_cents
  return `${formatDate(membership.next_payment_attempt_at)} · ${money(amount)}`
}

/**
 * The practice's members a page at a time, filtered by status (in the address): the patient (to
 * the profile), the plan, the status, the next payment and the bank.
 */
export function MemberList({
  page,
  status,
  onStatus,
  onPage,
}: {
  page: { data: Membership[]; page: number; total: number; pageSize: number }
  status: MembershipStatus | undefined
  onStatus: (status: MembershipStatus | undefined) => void
  onPage: (page: number) => void
}) {
  return (
    <Stack gap="sm">
      <Select
        label="Status"
        w={220}
        allowDeselect={false}
        value={status ?? 'all'}
        onChange={(value) =>
          onStatus(!value || value === 'all' ? undefined : (value as MembershipStatus))
        }
        data={[
          { value: 'all', label: 'Every status' },
          ...MEMBERSHIP_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] })),
        ]}
      />
      {page.data.length === 0 ? (
        <EmptyNote>
          {status
            ? `No membership is ${STATUS_LABELS[status].toLowerCase()}.`
            : 'Nobody has joined a plan yet: start a membership from a patient’s profile.'}
        </EmptyNote>
      ) : (
        <>
          <TableScroll label="Member list" minWidth={720}>
            <Table striped verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Patient</Table.Th>
                  <Table.Th>Plan</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Next payment</Table.Th>
                  <Table.Th>Bank</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {page.data.map((membership) => (
                  <Table.Tr key={membership.id}>
                    <Table.Td data-label="Patient">
                      <AnchorLink
                        to="/patients/$patientId"
                        params={{ patientId: String(membership.patient_id) }}
                        fw={500}
                      >
                        {membership.patient_name}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td data-label="Plan">
                      {membership.plan.name}{' '}
                      <Text span size="sm" c="dimmed">
                        (version {membership.plan.version})
                      </Text>
                    </Table.Td>
                    <Table.Td data-label="Status">
                      <StatusBadge status={membership.status} />
                    </Table.Td>
                    <Table.Td data-label="Next payment">{nextPayment(membership)}</Table.Td>
                    <Table.Td data-label="Bank">{money(membership.bank_cents)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" c="dimmed">
              {page.total.toLocaleString('en-US')} {page.total === 1 ? 'membership' : 'memberships'}
            </Text>
            <ListPagination list={page} onPage={onPage} itemLabel={(n) => `Members page ${n}`} />
          </Group>
        </>
      )}
    </Stack>
  )
}
