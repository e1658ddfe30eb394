import { Button, Group, Stack, Table, Text, Title } from '@mantine/core'
import { useId, useState } from 'react'
import { type MembershipBank, money } from '#domain/memberships.ts'
import { formatDateTime } from '#src/lib/format.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { TableScroll } from '#src/ui/table-scroll.tsx'
import { signedMoney } from './membership-texts.ts'

/**
 * An amount column's alignment: at the end of a table row, at the start under its label where the
 * table becomes cards (a phone, below `sm`: TableScroll), in line with the other values.
 */
export const CELL_END = { base: 'left', sm: 'right' } as const

/** Entries shown before "Show all": the newest ones. */
export const BANK_ENTRIES_SHOWN = 5

/**
 * The bank's history: each entry (paid in with a cycle, used at a visit, put back when the visit
 * was undone, taken back with a refund) with the balance it left, newest first; the newest
 * {@link BANK_ENTRIES_SHOWN}, then all of them on "Show all".
 */
export function BankHistory({ bank }: { bank: MembershipBank | string }) {
  const headingId = useId()
  const [all, setAll] = useState(false)
  const entries = typeof bank === 'string' ? [] : bank.data
  const shown = all ? entries : entries.slice(0, BANK_ENTRIES_SHOWN)
  return (
    <Stack gap="xs" component="section" aria-labelledby={headingId}>
      <Title order={3} size="h5" id={headingId}>
        Bank history
      </Title>
      {typeof bank === 'string' ? (
        <FailureAlert>{bank}</FailureAlert>
      ) : entries.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing paid in yet.
        </Text>
      ) : (
        <>
          <TableScroll label="Bank entries" minWidth={560}>
            <Table striped verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>What</Table.Th>
                  <Table.Th ta="right">Amount</Table.Th>
                  <Table.Th ta="right">Balance</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((entry) => (
                  <Table.Tr key={entry.id}>
                    <Table.Td data-label="When" style={{ whiteSpace: 'nowrap' }}>
                      {formatDateTime(entry.at)}
                    </Table.Td>
                    <Table.Td data-label="What">{entry.detail}</Table.Td>
                    <Table.Td data-label="Amount" ta={CELL_END} style={{ whiteSpace: 'nowrap' }}>
                      {signedMoney(entry.amount_cents)}
                    </Table.Td>
                    <Table.Td data-label="Balance" ta={CELL_END} style={{ whiteSpace: 'nowrap' }}>
                      {money(entry.balance_after_cents)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
          {entries.length > BANK_ENTRIES_SHOWN && (
            <Group justify="space-between" gap="sm">
              <Text size="sm" c="dimmed">
                {all
                  ? `All ${entries.length} entries.`
                  : `The newest ${BANK_ENTRIES_SHOWN} of ${entries.length} entries.`}
              </Text>
              <Button variant="subtle" size="xs" onClick={() => setAll(!all)}>
                {all ? `Show the newest ${BANK_ENTRIES_SHOWN}` : `Show all ${entries.length}`}
              </Button>
            </Group>
          )}
        </>
      )}
    </Stack>
  )
}
