import { Button, Group, Paper, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import {
  addDays,
  centsField,
  dayOf,
  LIABILITY_LABELS,
  LIABILITY_LINES,
  type LiabilityReport,
  liabilityClosing,
  monthStart,
} from '#domain/reports.ts'
import { formatCents } from '#src/lib/format.ts'
import { ExportCsvButton } from '#src/ui/export-csv-button.tsx'
import { formatCount } from './dashboard-tiles.tsx'

type Period = { from: string; to: string }

/** Quick choices of the period, from today. */
function presets(today: string): { label: string; period: Period }[] {
  const thisMonth = monthStart(today)
  const lastMonthEnd = addDays(thisMonth, -1)
  return [
    { label: 'This month', period: { from: thisMonth, to: today } },
    { label: 'Last month', period: { from: monthStart(lastMonthEnd), to: lastMonthEnd } },
    { label: 'This year', period: { from: `${today.slice(0, 4)}-01-01`, to: today } },
  ]
}

/** How a line reads in the table: movements carry the sign of their effect on the balance. */
function signed(report: LiabilityReport, line: (typeof LIABILITY_LINES)[number]) {
  const points = report[line]
  const cents = report[centsField(line)] as number
  if (line === 'opening_points' || line === 'closing_points') {
    return { points: formatCount(points), cents }
  }
  if (points === 0) return { points: '0', cents: 0 }
  return { points: `${points < 0 ? '−' : '+'}${formatCount(Math.abs(points))}`, cents }
}

/**
 * The points liability report: for a period, the opening balance, what was earned,
 * given as bonus, adjusted, redeemed, expired and reversed, and the closing balance, in points and
 * dollars, adding up exactly; with the CSV for the accountant.
 */
export function LiabilityReportView({
  report,
  onPeriod,
  download,
}: {
  report: LiabilityReport
  onPeriod: (period: Period) => void
  download: () => Promise<{ blob: Blob; fileName: string }>
}) {
  const [from, setFrom] = useState(report.period.from)
  const [to, setTo] = useState(report.period.to)
  const [error, setError] = useState<string | null>(null)
  const today = dayOf(new Date())
  const apply = () => {
    if (!from || !to) return setError('Choose both days of the period.')
    if (from > to) return setError('The period must start on or before the day it ends.')
    setError(null)
    onPeriod({ from, to })
  }
  const addsUp = liabilityClosing(report) === report.closing_points
  return (
    <Stack gap="md">
      <Paper withBorder p="md" radius="md">
        <form
          onSubmit={(event) => {
            event.preventDefault()
            apply()
          }}
        >
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
              <TextInput
                type="date"
                label="From"
                value={from}
                max={to || undefined}
                onChange={(event) => setFrom(event.currentTarget.value)}
              />
              <TextInput
                type="date"
                label="To"
                value={to}
                min={from || undefined}
                error={error}
                onChange={(event) => setTo(event.currentTarget.value)}
              />
            </SimpleGrid>
            <Group gap="xs" wrap="wrap">
              <Button type="submit">Show the period</Button>
              {presets(today).map((preset) => (
                <Button
                  key={preset.label}
                  variant="default"
                  onClick={() => {
                    setFrom(preset.period.from)
                    setTo(preset.period.to)
                    setError(null)
                    onPeriod(preset.period)
                  }}
                >
                  {preset.label}
                </Button>
              ))}
            </Group>
          </Stack>
        </form>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Table withTableBorder striped fz="sm">
            <Table.Caption>
              Points liability from {report.period.from} to {report.period.to}, at{' '}
              {report.point_value_cents}¢ a point
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Line</Table.Th>
                <Table.Th scope="col" ta="right">
                  Points
                </Table.Th>
                <Table.Th scope="col" ta="right">
                  Dollars
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {LIABILITY_LINES.map((line) => {
                const shown = signed(report, line)
                const total = line === 'opening_points' || line === 'closing_points'
                return (
                  <Table.Tr key={line} data-line={line} fw={total ? 700 : undefined}>
                    <Table.Th scope="row" fw={total ? 700 : 500}>
                      {LIABILITY_LABELS[line]}
                    </Table.Th>
                    <Table.Td ta="right">{shown.points}</Table.Td>
                    <Table.Td ta="right">{formatCents(shown.cents)}</Table.Td>
                  </Table.Tr>
                )
              })}
            </Table.Tbody>
          </Table>
          <Text size="sm" c={addsUp ? 'dimmed' : 'red.8'}>
            {addsUp
              ? 'Each line carries its effect on the balance; Reversed cancels earlier entries (an undone visit, a reversed redemption). Opening balance + every line = closing balance.'
              : 'These lines do not add up to the closing balance: please tell support.'}
          </Text>
          <Group>
            <ExportCsvButton label="Export liability CSV" download={download} />
          </Group>
        </Stack>
      </Paper>
    </Stack>
  )
}
