import {
  Button,
  Center,
  Group,
  Loader,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { lazy, type ReactNode, Suspense, useId, useState } from 'react'
import { bankClosing, formatRate, type MembershipReport } from '#domain/membership-reports.ts'
import { money } from '#domain/memberships.ts'
import { addDays, monthStart } from '#domain/report-period.ts'
import { formatDate } from '#src/lib/format.ts'
import { EmptyNote } from '#src/ui/area-page.tsx'
import { ExportCsvButton } from '#src/ui/export-csv-button.tsx'
import { AnchorLink } from '#src/ui/links.tsx'
import { formatCount } from './dashboard-tiles.tsx'

// The chart (Mantine Charts and recharts) comes in a chunk of its own after the numbers.
const MrrMovementChart = lazy(() =>
  import('./membership-charts.tsx').then((module) => ({ default: module.MrrMovementChart })),
)

export type ReportPeriod = { from: string; to: string }

/** The first day of the month `months` before `day`'s. */
function monthsBack(day: string, months: number): string {
  const date = new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1 - months, 1))
  return date.toISOString().slice(0, 10)
}

/** The periods offered, from the report's today. */
export function periodPresets(
  today: string,
): { value: string; label: string; period: ReportPeriod }[] {
  const lastMonthEnd = addDays(monthStart(today), -1)
  return [
    { value: '12', label: 'Last 12 months', period: { from: monthsBack(today, 11), to: today } },
    { value: '6', label: 'Last 6 months', period: { from: monthsBack(today, 5), to: today } },
    { value: '3', label: 'Last 3 months', period: { from: monthsBack(today, 2), to: today } },
    { value: 'month', label: 'This month', period: { from: monthStart(today), to: today } },
    {
      value: 'last-month',
      label: 'Last month',
      period: { from: monthStart(lastMonthEnd), to: lastMonthEnd },
    },
    {
      value: 'year',
      label: 'This year',
      period: { from: `${today.slice(0, 4)}-01-01`, to: today },
    },
  ]
}

/** A day as people read it: `Nov 27, 2026`. */
const day = (value: string) => formatDate(`${value}T12:00:00Z`)

/** The last day of a `YYYY-MM` month. */
const monthEnd = (month: string) =>
  new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0))
    .toISOString()
    .slice(0, 10)

/** The period chooser: a preset, or a range of months. */
function PeriodPicker({
  report,
  onPeriod,
}: {
  report: MembershipReport
  onPeriod: (period: ReportPeriod) => void
}) {
  const presets = periodPresets(report.today)
  const chosen =
    presets.find((p) => p.period.from === report.from && p.period.to === report.to)?.value ??
    'custom'
  const [fromMonth, setFromMonth] = useState(report.from.slice(0, 7))
  const [toMonth, setToMonth] = useState(report.to.slice(0, 7))
  const [error, setError] = useState<string | null>(null)
  return (
    <form
      aria-label="Period"
      onSubmit={(event) => {
        event.preventDefault()
        if (!fromMonth || !toMonth) return setError('Choose both months.')
        if (fromMonth > toMonth) return setError('The first month must come before the last.')
        setError(null)
        const to = monthEnd(toMonth) < report.today ? monthEnd(toMonth) : report.today
        onPeriod({ from: `${fromMonth}-01`, to })
      }}
    >
      <Group align="flex-end" gap="sm" wrap="wrap">
        <Select
          label="Period"
          data={[
            ...presets.map(({ value, label }) => ({ value, label })),
            ...(chosen === 'custom' ? [{ value: 'custom', label: 'Chosen months' }] : []),
          ]}
          value={chosen}
          allowDeselect={false}
          w={{ base: '100%', xs: 190 }}
          onChange={(value) => {
            const preset = presets.find((p) => p.value === value)
            if (preset) onPeriod(preset.period)
          }}
        />
        <TextInput
          type="month"
          label="From month"
          value={fromMonth}
          max={toMonth || undefined}
          w={{ base: 'calc(50% - 6px)', xs: 170 }}
          onChange={(event) => setFromMonth(event.currentTarget.value)}
        />
        <TextInput
          type="month"
          label="To month"
          value={toMonth}
          min={fromMonth || undefined}
          max={report.today.slice(0, 7)}
          error={error}
          w={{ base: 'calc(50% - 6px)', xs: 170 }}
          onChange={(event) => setToMonth(event.currentTarget.value)}
        />
        {/* Level with the fields, whose wrappers keep room for an error line (src/app/forms.css). */}
        <Button type="submit" variant="default" style={{ marginBottom: 'var(--glow-error-room)' }}>
          Show these months
        </Button>
      </Group>
    </form>
  )
}

/** One figure: its name, the number, and a line that explains it. */
function Tile({ label, value, note }: { label: string; value: string; note?: ReactNode }) {
  const id = useId()
  return (
    <Paper withBorder p="md" radius="md" role="group" aria-labelledby={id}>
      <Stack gap={2}>
        <Text size="sm" c="dimmed" id={id}>
          {label}
        </Text>
        <Text fz={28} fw={700} lh={1.2}>
          {value}
        </Text>
        {note && <Text size="sm">{note}</Text>}
      </Stack>
    </Paper>
  )
}

/** The bank's roll-forward as a small table that visibly adds up. */
function BankTable({ report }: { report: MembershipReport }) {
  const bank = report.bank
  if (!bank) return null
  const addsUp = bankClosing(bank) === bank.closing_cents
  const endsToday = report.to === report.today
  /** A movement with the sign of its effect on the balance (none when nothing moved). */
  const signed = (sign: '+' | '−', cents: number) =>
    cents === 0 ? money(0) : `${sign}${money(cents)}`
  const lines: [string, string, boolean][] = [
    ['Opening balance', money(bank.opening_cents), true],
    ['Paid in with cycles', signed('+', bank.paid_in_cents), false],
    ['Used at visits', signed('−', bank.used_cents), false],
    ['Refunded', signed('−', bank.refunded_cents), false],
    ['Closing balance', money(bank.closing_cents), true],
  ]
  return (
    <Paper component="section" aria-labelledby="bank-title" withBorder p="md" radius="md">
      <Stack gap="sm">
        <Title order={2} size="h4" id="bank-title">
          Membership bank
        </Title>
        <Table withTableBorder fz="sm">
          <Table.Caption>
            The members’ banks from {day(report.from)} to {day(report.to)}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Line</Table.Th>
              <Table.Th scope="col" ta="right">
                Amount
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {lines.map(([label, amount, total]) => (
              <Table.Tr key={label}>
                <Table.Th scope="row" fw={total ? 700 : 500}>
                  {label}
                </Table.Th>
                <Table.Td ta="right" fw={total ? 700 : undefined}>
                  {amount}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Text size="sm" c={addsUp ? 'dimmed' : 'red.8'}>
          {addsUp
            ? `Opening balance + paid in − used − refunded = closing balance. Paid-in value never expires; used is net of undone visits.${endsToday ? ` The members’ banks hold ${money(bank.members_cents)} today.` : ''}`
            : 'These lines do not add up to the closing balance: please tell support.'}
        </Text>
      </Stack>
    </Paper>
  )
}

function AllowancesTable({
  report,
  moneyShown,
}: {
  report: MembershipReport
  moneyShown: boolean
}) {
  const items = report.allowances_outstanding
  return (
    <Paper component="section" aria-labelledby="allowances-title" withBorder p="md" radius="md">
      <Stack gap="sm">
        <Title order={2} size="h4" id="allowances-title">
          Allowances outstanding
        </Title>
        <Text size="sm" c="dimmed">
          Included treatments members can still use this cycle
          {moneyShown ? ', at catalogue prices' : ''}.
        </Text>
        {items.length === 0 ? (
          <Text size="sm">No included treatment is waiting to be used.</Text>
        ) : (
          <Table withTableBorder striped fz="sm">
            <Table.Caption>Allowances outstanding today</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Treatment</Table.Th>
                <Table.Th scope="col" ta="right">
                  Units left
                </Table.Th>
                {moneyShown && (
                  <Table.Th scope="col" ta="right">
                    Value
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((item) => (
                <Table.Tr key={item.catalogue_item_id}>
                  <Table.Th scope="row" fw={500}>
                    {item.name}
                  </Table.Th>
                  <Table.Td ta="right">{formatCount(item.units)}</Table.Td>
                  {moneyShown && <Table.Td ta="right">{money(item.value_cents ?? 0)}</Table.Td>}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Paper>
  )
}

/** Keeps the chart's space while its chunk arrives, so nothing below moves. */
function ChartPlaceholder() {
  return (
    <Paper withBorder p="md" radius="md" aria-busy="true" mih={380}>
      <Center mih={340}>
        <Loader size="sm" aria-label="Loading the chart" />
      </Center>
    </Paper>
  )
}

/** Whether the period has nothing to show: no member in it, and no allowance waiting. */
export function isEmptyReport(report: MembershipReport): boolean {
  return (
    report.active + report.paused + report.past_due + report.unpaid === 0 &&
    report.new === 0 &&
    report.cancelled === 0 &&
    report.members_at_start === 0 &&
    report.allowances_outstanding.length === 0
  )
}

/**
 * The memberships dashboard: members by status (cancelled by reason), churn and failed-payment
 * recovery rates, and for Managers and Admins MRR with its month-by-month movement, the bank's
 * roll-forward and the value of the allowances outstanding. Staff see the counts, no money.
 */
export function MembershipDashboard({
  report,
  moneyShown,
  onPeriod,
  download,
}: {
  report: MembershipReport
  /** Whether the reader may see money (the answer has no money fields otherwise). */
  moneyShown: boolean
  onPeriod: (period: ReportPeriod) => void
  download: () => Promise<{ blob: Blob; fileName: string }>
}) {
  const reasons = report.cancelled_by_reason
  const empty = isEmptyReport(report)
  return (
    <Stack gap="lg">
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <PeriodPicker key={`${report.from}-${report.to}`} report={report} onPeriod={onPeriod} />
          <Group justify="space-between" align="center" wrap="wrap" gap="sm">
            <Text size="sm">
              From <strong>{day(report.from)}</strong> to <strong>{day(report.to)}</strong>
              {report.to === report.today ? ' (today)' : ''}.
            </Text>
            <ExportCsvButton label="Download CSV" download={download} />
          </Group>
        </Stack>
      </Paper>
      {empty ? (
        <EmptyNote>
          No memberships in this period. When patients join a plan, their numbers show here.{' '}
          <AnchorLink to="/memberships" underline="always">
            Go to the plans
          </AnchorLink>
        </EmptyNote>
      ) : (
        <>
          <section aria-labelledby="members-title">
            <Stack gap="sm">
              <Title order={2} size="h4" id="members-title">
                Members
              </Title>
              {/* Nine tiles with MRR fill three rows of three; Staff's eight, two rows of four. */}
              <SimpleGrid cols={{ base: 2, sm: moneyShown ? 3 : 4 }} spacing="sm">
                {moneyShown && report.mrr_cents !== undefined && (
                  <Tile
                    label="MRR"
                    value={money(report.mrr_cents)}
                    note="Monthly recurring revenue at the end of the period."
                  />
                )}
                <Tile
                  label="Active"
                  value={formatCount(report.active)}
                  note="At the end of the period."
                />
                <Tile label="New" value={formatCount(report.new)} note="Joined in the period." />
                <Tile label="Paused" value={formatCount(report.paused)} />
                <Tile
                  label="Past due"
                  value={formatCount(report.past_due)}
                  note="A renewal was declined; retries run."
                />
                <Tile
                  label="Unpaid"
                  value={formatCount(report.unpaid)}
                  note="Every retry was declined."
                />
                <Tile
                  label="Cancelled"
                  value={formatCount(report.cancelled)}
                  note={`${formatCount(reasons.patient)} by the patient, ${formatCount(reasons.staff)} by staff, ${formatCount(reasons.failed_payment)} for failed payment.`}
                />
                <Tile
                  label="Churn rate"
                  value={formatRate(report.churn_rate)}
                  note={
                    report.members_at_start > 0
                      ? `${formatCount(report.churned)} of the ${formatCount(report.members_at_start)} members at the start left or went unpaid.`
                      : 'No members at the start of the period.'
                  }
                />
                <Tile
                  label="Recovery rate"
                  value={formatRate(report.recovery_rate)}
                  note={
                    report.recovered + report.not_recovered > 0
                      ? `${formatCount(report.recovered)} of ${formatCount(report.recovered + report.not_recovered)} past-due members paid again.`
                      : 'No past-due member was settled in the period.'
                  }
                />
              </SimpleGrid>
            </Stack>
          </section>
          {moneyShown && report.mrr_movement && (
            <Suspense fallback={<ChartPlaceholder />}>
              <MrrMovementChart months={report.mrr_movement} />
            </Suspense>
          )}
          <SimpleGrid cols={{ base: 1, md: moneyShown ? 2 : 1 }} spacing="md">
            {moneyShown && <BankTable report={report} />}
            <AllowancesTable report={report} moneyShown={moneyShown} />
          </SimpleGrid>
        </>
      )}
      {!moneyShown && (
        <Text size="sm" c="dimmed">
          Money figures (monthly recurring revenue, the membership bank, the value of allowances)
          are for Managers and Admins.
        </Text>
      )}
    </Stack>
  )
}
