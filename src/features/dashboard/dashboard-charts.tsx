import '@mantine/core/styles/ColorSwatch.css'
import '@mantine/charts/styles.css'
import { BarChart } from '@mantine/charts'
import { Button, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core'
import { type ReactNode, useId, useState } from 'react'
import type { MonthFigures, OfferFunnel } from '#domain/reports.ts'
import { ratePercent } from '#domain/reports.ts'
import classes from './dashboard-charts.module.css'
import { formatCount } from './dashboard-tiles.tsx'

const monthName = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
})

/** `2027-03` as "Mar 2027". */
export const formatMonth = (month: string) => monthName.format(new Date(`${month}-01T00:00:00Z`))

export type Column<Row> = { label: string; value: (row: Row) => string | number }

/**
 * A chart with its text alternatives: a sentence that sums it up (read by everyone, screen
 * readers included) and a "Show as table" switch to the same numbers as a table.
 */
export function ChartCard<Row>({
  title,
  summary,
  rows,
  columns,
  rowKey,
  tableMinWidth,
  children,
}: {
  title: string
  summary: string
  rows: Row[]
  columns: Column<Row>[]
  rowKey: (row: Row) => string
  /** A table wider than a phone scrolls inside the card from this width, not the page. */
  tableMinWidth?: number
  children: ReactNode
}) {
  const [asTable, setAsTable] = useState(false)
  const headingId = useId()
  // In a table that scrolls sideways, a cell keeps its figure on one line.
  const nowrap = tableMinWidth ? ({ whiteSpace: 'nowrap' } as const) : undefined
  const table = (
    <Table
      striped
      withTableBorder
      fz="sm"
      // A scrolling table sizes its columns to their content (a month's name on one line).
      layout={tableMinWidth ? 'auto' : 'fixed'}
      miw={tableMinWidth}
    >
      <Table.Caption>{title}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column) => (
            <Table.Th key={column.label} scope="col">
              {column.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={rowKey(row)}>
            {columns.map((column, i) =>
              i === 0 ? (
                <Table.Th key={column.label} scope="row" style={nowrap}>
                  {column.value(row)}
                </Table.Th>
              ) : (
                <Table.Td key={column.label} style={nowrap}>
                  {column.value(row)}
                </Table.Td>
              ),
            )}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
  return (
    <Paper component="section" aria-labelledby={headingId} withBorder p="md" radius="md" miw={0}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
          <Title order={3} size="h5" id={headingId}>
            {title}
          </Title>
          <Button
            variant="subtle"
            size="compact-sm"
            aria-pressed={asTable}
            onClick={() => setAsTable((shown) => !shown)}
          >
            {asTable ? 'Show as chart' : 'Show as table'}
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          {summary}
        </Text>
        <div className={classes.chartBox}>
          {asTable ? (
            tableMinWidth ? (
              // Wider than a phone: it scrolls sideways inside the card, and takes the focus so the
              // keyboard can scroll it too.
              <section
                className={classes.tableScroll}
                aria-label={`${title} (scrolls sideways)`}
                // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
                tabIndex={0}
              >
                {table}
              </section>
            ) : (
              table
            )
          ) : (
            // The drawing repeats the sentence above and the table; screen readers skip it.
            <div aria-hidden="true">{children}</div>
          )}
        </div>
      </Stack>
    </Paper>
  )
}

/** The drawing is hidden from screen readers, so it must not take the keyboard's focus either. */
const NOT_FOCUSABLE = { accessibilityLayer: false }

const sum = (rows: MonthFigures[], key: keyof Omit<MonthFigures, 'month'>) =>
  rows.reduce((total, row) => total + row[key], 0)

/**
 * The dashboard's charts (Mantine Charts, loaded with the dashboard only): points earned, redeemed
 * and expired per month over 12 months, new patients per month, and the funnel of each live offer.
 */
export function DashboardCharts({
  months,
  offers,
}: {
  months: MonthFigures[]
  offers: OfferFunnel[]
}) {
  const data = months.map((row) => ({ ...row, label: formatMonth(row.month) }))
  const first = data[0]?.label ?? ''
  const last = data.at(-1)?.label ?? ''
  const busiest = [...data].sort((a, b) => b.earned - a.earned)[0]
  const joined = sum(months, 'new_patients')
  const pointsSummary = `${first} to ${last}: ${formatCount(sum(months, 'earned'))} points earned, ${formatCount(sum(months, 'redeemed'))} redeemed and ${formatCount(sum(months, 'expired'))} expired${busiest && busiest.earned > 0 ? `; most earned in ${busiest.label} (${formatCount(busiest.earned)})` : ''}.`
  const patientsSummary = `${first} to ${last}: ${formatCount(joined)} new ${joined === 1 ? 'patient' : 'patients'}, ${formatCount(months.at(-1)?.new_patients ?? 0)} in ${last}.`
  const offerData = offers.map((offer) => ({
    title: offer.title,
    Sent: offer.sent,
    Claimed: offer.claimed,
    Redeemed: offer.redeemed,
  }))
  const offersSummary =
    offers.length === 0
      ? 'No offer is live right now.'
      : offers
          .map((offer) => {
            const rate = ratePercent(offer.redeemed, offer.claimed)
            return `${offer.title}: ${offer.sent} sent, ${offer.claimed} claimed, ${offer.redeemed} redeemed${rate === null ? '' : ` (${rate}%)`}`
          })
          .join('; ')
          .concat('.')
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md" className={classes.charts}>
      <ChartCard
        title="Points per month"
        summary={pointsSummary}
        rows={data}
        rowKey={(row) => row.month}
        columns={[
          { label: 'Month', value: (row) => row.label },
          { label: 'Earned', value: (row) => formatCount(row.earned) },
          { label: 'Redeemed', value: (row) => formatCount(row.redeemed) },
          { label: 'Expired', value: (row) => formatCount(row.expired) },
        ]}
      >
        <BarChart
          h={240}
          barChartProps={NOT_FOCUSABLE}
          data={data}
          dataKey="label"
          withLegend
          tickLine="y"
          series={[
            { name: 'earned', label: 'Earned', color: 'var(--chart-earned)' },
            { name: 'redeemed', label: 'Redeemed', color: 'var(--chart-redeemed)' },
            { name: 'expired', label: 'Expired', color: 'var(--chart-expired)' },
          ]}
        />
      </ChartCard>
      <ChartCard
        title="New patients per month"
        summary={patientsSummary}
        rows={data}
        rowKey={(row) => row.month}
        columns={[
          { label: 'Month', value: (row) => row.label },
          { label: 'New patients', value: (row) => formatCount(row.new_patients) },
        ]}
      >
        <BarChart
          h={240}
          barChartProps={NOT_FOCUSABLE}
          data={data}
          dataKey="label"
          tickLine="y"
          series={[{ name: 'new_patients', label: 'New patients', color: 'var(--chart-joined)' }]}
        />
      </ChartCard>
      <ChartCard
        title="Live offers: sent, claimed and redeemed"
        summary={offersSummary}
        rows={offers}
        rowKey={(row) => String(row.id)}
        columns={[
          { label: 'Offer', value: (row) => row.title },
          { label: 'Sent', value: (row) => formatCount(row.sent) },
          { label: 'Claimed', value: (row) => formatCount(row.claimed) },
          { label: 'Redeemed', value: (row) => formatCount(row.redeemed) },
          {
            label: 'Rate',
            value: (row) => {
              const rate = ratePercent(row.redeemed, row.claimed)
              return rate === null ? '—' : `${rate}%`
            },
          },
        ]}
      >
        <BarChart
          h={240}
          barChartProps={NOT_FOCUSABLE}
          data={offerData}
          dataKey="title"
          withLegend
          tickLine="y"
          series={[
            { name: 'Sent', color: 'var(--chart-sent)' },
            { name: 'Claimed', color: 'var(--chart-claimed)' },
            { name: 'Redeemed', color: 'var(--chart-earned)' },
          ]}
        />
      </ChartCard>
    </SimpleGrid>
  )
}
