import '@mantine/core/styles/Tabs.css'
import { Group, Loader, Paper, Stack, Tabs, Text, Title } from '@mantine/core'
import { useEffect, useState } from 'react'
import { money } from '#domain/memberships.ts'
import {
  WORKLIST_LISTS,
  WORKLIST_WINDOWS,
  type WorklistList,
  type WorklistPage,
  type WorklistRow,
} from '#domain/reports.ts'
import { formatDate, formatTime } from '#src/lib/format.ts'
import { FailureAlert } from '#src/ui/failure-alert.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { ListPagination } from '#src/ui/list-pagination.tsx'
import { formatCount } from './dashboard-tiles.tsx'

/** Each list's tab name and what its empty state says. */
const LISTS: Record<WorklistList, { tab: string; empty: string }> = {
  expiring: {
    tab: 'Points expiring',
    empty: `No points expire in the next ${WORKLIST_WINDOWS.expiringDays} days.`,
  },
  lapsing: {
    tab: 'Not seen in 90 days',
    empty: `Every patient with points has visited in the last ${WORKLIST_WINDOWS.lapsingDays} days.`,
  },
  'offers-ending': {
    tab: 'Offers ending',
    empty: `No claimed offer ends in the next ${WORKLIST_WINDOWS.offersEndingDays} days.`,
  },
  appointments: {
    tab: "Today's appointments",
    empty: 'Every appointment of today is completed.',
  },
  'memberships-past-due': {
    tab: 'Memberships past due',
    empty: 'No membership is past due: every renewal is paid.',
  },
  'cards-expiring': {
    tab: 'Cards expiring this month',
    empty: 'No member’s card expires at the end of this month.',
  },
}

/** What a row says after the patient's name. */
function detail(list: WorklistList, row: WorklistRow): string {
  switch (list) {
    case 'expiring':
      return `${formatCount(row.points ?? 0)} points expire on ${row.at ? formatDate(row.at) : '—'}`
    case 'lapsing':
      return `${formatCount(row.points ?? 0)} points; ${row.at ? `last visit ${formatDate(row.at)}` : 'no visit yet'}`
    case 'offers-ending':
      return `${row.label ?? 'Offer'} ends on ${row.at ? formatDate(row.at) : '—'}`
    case 'appointments':
      return `${row.at ? formatTime(row.at) : ''}${row.label ? ` · ${row.label}` : ''}`
    case 'memberships-past-due':
      return [
        row.label ?? 'Membership',
        row.amount_cents === undefined ? null : `${money(row.amount_cents)} due`,
        row.at ? `next try ${formatDate(row.at)}` : 'no retry left',
      ]
        .filter(Boolean)
        .join(' · ')
    case 'cards-expiring':
      return `${row.label ?? 'The card'} expires on ${row.at ? formatDate(row.at) : '—'}`
  }
}

function Row({ list, row }: { list: WorklistList; row: WorklistRow }) {
  const name = `${row.first_name} ${row.last_name}`
  return (
    <Group component="li" justify="space-between" wrap="wrap" gap={4} py={6}>
      <AnchorLink to="/patients/$patientId" params={{ patientId: String(row.patient_id) }} fw={600}>
        {name}
      </AnchorLink>
      <Group gap="sm" wrap="wrap">
        <Text size="sm">{detail(list, row)}</Text>
        {list === 'appointments' && row.at && (
          <AnchorLink
            to="/appointments"
            search={{ day: row.at.slice(0, 10) }}
            size="sm"
            aria-label={`Open the appointment of ${name} in the day view`}
          >
            Open appointment
          </AnchorLink>
        )}
      </Group>
    </Group>
  )
}

/**
 * The worklist: points expiring in the next 30 days, patients with points not seen in
 * 90 days, claimed offers that end within 7 days, today's appointments not yet completed,
 * memberships past due and members' cards that expire at the end of this month.
 * Each list pages on the server; the open list and its page live in the address.
 */
export function Worklist({
  first,
  list,
  page,
  onChange,
  load,
}: {
  /** The first page of each list, read with the dashboard (for the counts in the tabs). */
  first: Record<WorklistList, WorklistPage>
  list: WorklistList
  page: number
  onChange: (list: WorklistList, page: number) => void
  load: (list: WorklistList, page: number) => Promise<WorklistPage>
}) {
  const [shown, setShown] = useState<WorklistPage>(first[list])
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    if (page === 1) {
      setShown(first[list])
      setError(null)
      return
    }
    let current = true
    setLoading(true)
    load(list, page)
      .then((answer) => {
        if (current) {
          setShown(answer)
          setError(null)
        }
      })
      .catch(() => {
        if (current) setError('This page of the list could not be loaded. Please try again.')
      })
      .finally(() => {
        if (current) setLoading(false)
      })
    return () => {
      current = false
    }
  }, [first, list, page, load])

  return (
    <Paper component="section" aria-labelledby="worklist-title" withBorder p="md" radius="md">
      <Stack gap="sm">
        <Title order={2} size="h4" id="worklist-title">
          Worklist
        </Title>
        <Tabs
          value={list}
          onChange={(value) => value && onChange(value as WorklistList, 1)}
          keepMounted={false}
        >
          <Tabs.List>
            {WORKLIST_LISTS.map((key) => (
              <Tabs.Tab key={key} value={key}>
                {LISTS[key].tab} ({formatCount(first[key].total)})
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {WORKLIST_LISTS.map((key) => (
            <Tabs.Panel key={key} value={key} pt="sm">
              <Stack gap="xs" mih={120}>
                <FailureAlert>{error}</FailureAlert>
                {loading ? (
                  <Group justify="center" py="md">
                    <Loader size="sm" aria-label="Loading the list" />
                  </Group>
                ) : shown.data.length === 0 ? (
                  <Text c="dimmed">{page > 1 ? 'This page is empty.' : LISTS[key].empty}</Text>
                ) : (
                  <Stack component="ul" gap={0} m={0} p={0} style={{ listStyle: 'none' }}>
                    {shown.data.map((row) => (
                      <Row
                        key={`${row.patient_id}-${row.appointment_id ?? row.promotion_id ?? row.membership_id ?? ''}`}
                        list={key}
                        row={row}
                      />
                    ))}
                  </Stack>
                )}
                <ListPagination
                  list={{ total: shown.total, pageSize: shown.pageSize, page }}
                  onPage={(next) => onChange(key, next)}
                  itemLabel={(n) => `${LISTS[key].tab}, page ${n}`}
                />
              </Stack>
            </Tabs.Panel>
          ))}
        </Tabs>
      </Stack>
    </Paper>
  )
}
