import { Button, Group, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import {
  ACTION_LABELS,
  type ActivityFilter,
  type ActivityPage,
  AUDIT_ACTIONS,
} from '#domain/activity-log.ts'
import type { StaffMember } from '#domain/practice-data.ts'
import { formatDateTime } from '#src/lib/format.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { CardList } from '#src/ui/card-list.tsx'
import { ExportCsvButton } from '#src/ui/export-csv-button.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'

/** The actions in the filter, grouped as the log's labels say, in a stable order. */
const ACTION_CHOICES = Object.entries(
  AUDIT_ACTIONS.reduce<Record<string, { value: string; label: string }[]>>((groups, action) => {
    const { group, label } = ACTION_LABELS[action]
    groups[group] = [...(groups[group] ?? []), { value: action, label }]
    return groups
  }, {}),
).map(([group, items]) => ({ group, items }))

const plural = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'event' : 'events'}`

/** The sentence; a patient's is the link to their profile, in the table's own size. */
function Summary({ summary, patientId }: { summary: string; patientId: number | null }) {
  if (patientId === null) return <>{summary}</>
  return (
    <AnchorLink to="/patients/$patientId" params={{ patientId: String(patientId) }} inherit>
      {summary}
    </AnchorLink>
  )
}

/**
 * The activity log: who did what and when in the practice, filtered by person, action and days
 * (all kept in the address), a page at a time, a table from 768 px and cards below it; the filter's
 * events as CSV. A start after the end is said at once and nothing is asked of the server.
 */
export function ActivityLog({
  page,
  filter,
  staff,
  onFilter,
  download,
}: {
  page: ActivityPage
  filter: ActivityFilter
  staff: StaffMember[]
  /** Applies a new filter (page 1) or turns the page. */
  onFilter: (next: ActivityFilter) => void
  download: () => Promise<{ blob: Blob; fileName: string }>
}) {
  const [from, setFrom] = useState(filter.from ?? '')
  const [to, setTo] = useState(filter.to ?? '')
  const rangeError = from && to && from > to ? 'The end date is before the start date.' : null
  const filtered = Boolean(filter.actor || filter.action || filter.from || filter.to)
  const applyDates = (nextFrom: string, nextTo: string) => {
    if (nextFrom && nextTo && nextFrom > nextTo) return
    onFilter({ ...filter, from: nextFrom || undefined, to: nextTo || undefined, page: 1 })
  }
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm">
        <Select
          label="Person"
          placeholder="Everyone"
          clearable
          searchable
          data={staff.map((member) => ({
            value: String(member.id),
            label: `${member.first_name} ${member.last_name}`.trim() || member.email,
          }))}
          value={filter.actor ? String(filter.actor) : null}
          onChange={(value) =>
            onFilter({ ...filter, actor: value ? Number(value) : undefined, page: 1 })
          }
        />
        <Select
          label="Action"
          placeholder="Every action"
          clearable
          searchable
          data={ACTION_CHOICES}
          value={filter.action ?? null}
          onChange={(value) => onFilter({ ...filter, action: value ?? undefined, page: 1 })}
        />
        <TextInput
          type="date"
          label="From"
          value={from}
          onChange={(event) => {
            const next = event.currentTarget.value
            setFrom(next)
            applyDates(next, to)
          }}
        />
        <TextInput
          type="date"
          label="To"
          value={to}
          error={rangeError}
          onChange={(event) => {
            const next = event.currentTarget.value
            setTo(next)
            applyDates(from, next)
          }}
        />
      </SimpleGrid>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Text size="sm" c="dimmed" role="status" aria-live="polite">
          {filtered
            ? `${plural(page.total)} ${page.total === 1 ? 'matches' : 'match'} the filter`
            : plural(page.total)}
        </Text>
        <Group gap="sm" align="flex-start">
          {filtered && (
            <Button
              variant="subtle"
              onClick={() => {
                setFrom('')
                setTo('')
                onFilter({ page: 1 })
              }}
            >
              Clear filters
            </Button>
          )}
          <ExportCsvButton download={download} label="Export CSV" />
        </Group>
      </Group>
      {page.data.length === 0 ? (
        <EmptyNote>
          {filtered ? 'No event matches this filter.' : 'Nothing has happened yet.'}
        </EmptyNote>
      ) : (
        <>
          <Table visibleFrom="sm" striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={190}>When</Table.Th>
                <Table.Th>What happened</Table.Th>
                <Table.Th w={150}>From</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.map((event) => (
                <Table.Tr key={event.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {formatDateTime(event.created_at)}
                  </Table.Td>
                  <Table.Td>
                    <Summary summary={event.summary} patientId={event.patient_id} />
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{event.ip ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <CardList items={page.data} itemKey={(event) => event.id}>
            {(event) => (
              <Stack gap={4}>
                <Text size="sm" c="dimmed">
                  {formatDateTime(event.created_at)}
                  {event.ip ? ` · ${event.ip}` : ''}
                </Text>
                <Text style={{ overflowWrap: 'anywhere' }}>
                  <Summary summary={event.summary} patientId={event.patient_id} />
                </Text>
              </Stack>
            )}
          </CardList>
        </>
      )}
      <ListPagination list={page} onPage={(next) => onFilter({ ...filter, page: next })} />
    </Stack>
  )
}
