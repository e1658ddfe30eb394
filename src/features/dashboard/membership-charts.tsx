import { BarChart } from '@mantine/charts'
import { type MembershipReportMrrMonth, MRR_MOVEMENTS } from '#domain/membership-reports.ts'
import { money } from '#domain/memberships.ts'
import { ChartCard, formatMonth } from './dashboard-charts.tsx'
import classes from './membership-charts.module.css'

const COLORS: Record<(typeof MRR_MOVEMENTS)[number]['key'], string> = {
  new_cents: 'var(--mrr-new)',
  expansion_cents: 'var(--mrr-expansion)',
  reactivation_cents: 'var(--mrr-reactivation)',
  contraction_cents: 'var(--mrr-contraction)',
  voluntary_churn_cents: 'var(--mrr-voluntary)',
  involuntary_churn_cents: 'var(--mrr-involuntary)',
}

const total = (months: MembershipReportMrrMonth[], key: keyof MembershipReportMrrMonth) =>
  months.reduce((sum, month) => sum + (month[key] as number), 0)

/**
 * MRR's movement month by month (Mantine Charts, loaded with the memberships dashboard only):
 * gains above the line, losses below, with its sentence and the same numbers as a table.
 */
export function MrrMovementChart({ months }: { months: MembershipReportMrrMonth[] }) {
  const data = months.map((month) => ({
    label: formatMonth(month.month),
    ...Object.fromEntries(
      MRR_MOVEMENTS.map((movement) => [
        movement.label,
        (movement.sign * month[movement.key]) / 100,
      ]),
    ),
  }))
  const first = months[0]
  const last = months.at(-1)
  const summary =
    first && last
      ? `${formatMonth(first.month)} to ${formatMonth(last.month)}: MRR went from ${money(first.opening_mrr_cents)} to ${money(last.closing_mrr_cents)}, with ${money(total(months, 'new_cents'))} new, ${money(total(months, 'reactivation_cents'))} reactivated, ${money(total(months, 'expansion_cents'))} expansion, ${money(total(months, 'contraction_cents'))} contraction, ${money(total(months, 'voluntary_churn_cents'))} voluntary churn and ${money(total(months, 'involuntary_churn_cents'))} involuntary churn.`
      : 'No month to show.'
  return (
    <div className={classes.charts}>
      <ChartCard
        title="MRR movement by month"
        summary={summary}
        rows={months}
        rowKey={(month) => month.month}
        tableMinWidth={820}
        columns={[
          { label: 'Month', value: (month) => formatMonth(month.month) },
          { label: 'Opening', value: (month) => money(month.opening_mrr_cents) },
          ...MRR_MOVEMENTS.map((movement) => ({
            label: movement.label,
            value: (month: MembershipReportMrrMonth) =>
              month[movement.key] === 0
                ? money(0)
                : `${movement.sign < 0 ? '−' : '+'}${money(month[movement.key])}`,
          })),
          { label: 'Closing', value: (month) => money(month.closing_mrr_cents) },
        ]}
      >
        <BarChart
          h={240}
          barChartProps={{ accessibilityLayer: false, stackOffset: 'sign' }}
          data={data}
          dataKey="label"
          type="stacked"
          withLegend
          tickLine="y"
          valueFormatter={(value) => money(Math.round(value * 100))}
          series={MRR_MOVEMENTS.map((movement) => ({
            name: movement.label,
            color: COLORS[movement.key],
          }))}
        />
      </ChartCard>
    </div>
  )
}
