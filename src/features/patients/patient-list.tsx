import { Badge, Button, Group, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core'
import { useDebouncedCallback } from '@mantine/hooks'
import { IconPlus, IconSearch } from '@tabler/icons-react'
import type { ReactNode } from 'react'
import { formatPhone } from '#domain/phone.ts'
import { formatPoints } from '#domain/points.ts'
import type { PatientPage } from '#domain/practice-data.ts'
import { formatDate } from '#src/lib/format.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { CardList } from '#src/ui/card-list.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

function PatientName({ id, first, last }: { id: number; first: string; last: string }) {
  return (
    <AnchorLink to="/patients/$patientId" params={{ patientId: String(id) }} fw={600}>
      {first} {last}
    </AnchorLink>
  )
}

/**
 * The patient list: search as you type (name, e-mail or phone), one server page at a time, a table
 * from 768 px and stacked cards below it so nothing hides off-screen on a phone.
 */
export function PatientList({
  page,
  search,
  archived = false,
  onSearch,
  onPage,
  onAdd,
  actions,
}: {
  page: PatientPage
  search: string
  archived?: boolean
  onSearch: (search: string) => void
  onPage: (page: number) => void
  /** Opens "Add patient"; absent where patients cannot be added (the archive). */
  onAdd?: () => void
  /** More actions beside "Add patient" (the CSV export for Manager and Admin). */
  actions?: ReactNode
}) {
  const debounced = useDebouncedCallback(onSearch, 250)
  const noun = archived ? ['archived patient', 'archived patients'] : ['patient', 'patients']
  return (
    // A patient opened while a search is still being typed stays open: the search that would
    // have gone out 250 ms later (and taken the page back to the list) is dropped.
    <Stack
      gap="md"
      onClickCapture={(event) => {
        if (event.target instanceof Element && event.target.closest('a[href]')) debounced.cancel()
      }}
    >
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <TextInput
          label="Search patients"
          placeholder="Name, e-mail or phone"
          leftSection={<IconSearch size={16} aria-hidden />}
          defaultValue={search}
          onChange={(event) => debounced(event.currentTarget.value)}
          type="search"
          w={{ base: '100%', sm: 360 }}
        />
        {(onAdd || actions) && (
          <Group gap="sm" align="flex-start">
            {actions}
            {onAdd && (
              <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={onAdd}>
                Add patient
              </Button>
            )}
          </Group>
        )}
      </Group>
      <Text size="sm" c="dimmed" role="status" aria-live="polite">
        {search
          ? `${plural(page.total, ...(noun as [string, string]))} match “${search}”`
          : plural(page.total, ...(noun as [string, string]))}
      </Text>
      {page.data.length === 0 ? (
        <EmptyNote>
          {search
            ? 'No patient matches this search.'
            : archived
              ? 'No archived patients.'
              : 'No patients yet.'}
        </EmptyNote>
      ) : (
        <>
          <Table visibleFrom="sm" striped highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Phone</Table.Th>
                <Table.Th>E-mail</Table.Th>
                <Table.Th ta="right">Balance</Table.Th>
                <Table.Th>Last visit</Table.Th>
                <Table.Th>E-mail subscription</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.map((patient) => (
                <Table.Tr key={patient.id}>
                  <Table.Td>
                    <PatientName
                      id={patient.id}
                      first={patient.first_name}
                      last={patient.last_name}
                    />
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {formatPhone(patient.phone) || '—'}
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{patient.email ?? '—'}</Table.Td>
                  <Table.Td ta="right">{formatPoints(patient.points)}</Table.Td>
                  <Table.Td>
                    {patient.last_visit_at ? formatDate(patient.last_visit_at) : '—'}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={patient.email_subscription ? 'glow' : 'gray'} variant="light">
                      {patient.email_subscription ? 'Subscribed' : 'Unsubscribed'}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <CardList items={page.data} itemKey={(patient) => patient.id}>
            {(patient) => (
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Stack gap={2} miw={0}>
                  <PatientName
                    id={patient.id}
                    first={patient.first_name}
                    last={patient.last_name}
                  />
                  <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    {[formatPhone(patient.phone), patient.email].filter(Boolean).join(' · ') ||
                      'No contact details'}
                  </Text>
                </Stack>
                <Text fw={600} style={{ whiteSpace: 'nowrap' }}>
                  {formatPoints(patient.points)}
                  <VisuallyHidden> points</VisuallyHidden>
                  <Text span size="xs" c="dimmed" aria-hidden>
                    {' '}
                    pts
                  </Text>
                </Text>
              </Group>
            )}
          </CardList>
        </>
      )}
      <ListPagination list={page} onPage={onPage} />
    </Stack>
  )
}
