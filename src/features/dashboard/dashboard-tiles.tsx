import { Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { formatPoints } from '#domain/points.ts'
import { type Compared, type ReportSummary, ratePercent } from '#domain/reports.ts'
import { formatCents } from '#src/lib/format.ts'

/** A whole number as the tiles write it: 12,340 (the points' own formatting). */
export const formatCount = formatPoints

/** "+12" / "−3" / "no change": how a figure moved since the previous period. */
function change(figure: Compared): string {
  const delta = figure.current - figure.previous
  if (delta === 0) return 'no change'
  return `${delta > 0 ? '+' : '−'}${formatCount(Math.abs(delta))}`
}

/** A figure's line against the previous period, in words a screen reader says whole. */
function Previous({ figure, label }: { figure: Compared; label: string }) {
  return (
    <Text size="xs" c="dimmed">
      {label}: {formatCount(figure.previous)} ({change(figure)})
    </Text>
  )
}

function Tile({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper component="section" aria-label={title} withBorder p="md" radius="md" miw={0}>
      <Stack gap={4}>
        <Text size="sm" c="dimmed" fw={600}>
          {title}
        </Text>
        {children}
      </Stack>
    </Paper>
  )
}

function Big({ children, label }: { children: ReactNode; label?: string }) {
  return (
    <Text fz={28} fw={700} lh={1.2} data-figure={label}>
      {children}
    </Text>
  )
}

/**
 * The dashboard's tiles: patients, points outstanding (and, for money holders, their
 * liability in dollars), points earned, redeemed and expired, offers claimed → redeemed, today's
 * appointments; each against the period of the same length before (today: against yesterday).
 */
export function DashboardTiles({
  summary,
  previousLabel,
}: {
  summary: ReportSummary
  /** How the comparison names the previous period ("Previous 15 days"). */
  previousLabel: string
}) {
  const { tiles } = summary
  const rate = ratePercent(tiles.offers_redeemed.current, tiles.offers_claimed.current)
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, lg: 3 }} spacing="md">
      <Tile title="Patients">
        <Big label="patients">{formatCount(tiles.patients.current)}</Big>
        <Text size="sm">
          <span data-figure="new-patients">{formatCount(tiles.new_patients.current)}</span> new this
          period
        </Text>
        {tiles.imported_patients.current > 0 && (
          <Text size="sm">
            <span data-figure="imported-patients">
              {formatCount(tiles.imported_patients.current)}
            </span>{' '}
            imported (not counted as new: the file had no "joined on" day)
          </Text>
        )}
        <Previous figure={tiles.new_patients} label={`New, ${previousLabel.toLowerCase()}`} />
      </Tile>
      <Tile title="Points outstanding">
        <Big label="points-outstanding">{formatCount(tiles.points_outstanding.current)}</Big>
        {tiles.liability_cents && (
          <Text size="sm">
            Liability{' '}
            <span data-figure="liability">{formatCents(tiles.liability_cents.current)}</span>
          </Text>
        )}
        <Previous figure={tiles.points_outstanding} label={`At the start of the period`} />
      </Tile>
      <Tile title="Points this period">
        <Group gap="lg" wrap="wrap">
          {(
            [
              ['Earned', 'points-earned', tiles.points_earned],
              ['Redeemed', 'points-redeemed', tiles.points_redeemed],
              ['Expired', 'points-expired', tiles.points_expired],
              ['Adjusted', 'points-adjusted', tiles.points_adjusted],
            ] as const
          ).map(([label, key, figure]) => (
            <Stack key={key} gap={0}>
              <Text size="xs" c="dimmed">
                {label}
              </Text>
              <Text fz={22} fw={700} data-figure={key}>
                {key === 'points-adjusted' && figure.current > 0 ? '+' : ''}
                {figure.current < 0 ? '−' : ''}
                {formatCount(Math.abs(figure.current))}
              </Text>
              <Text size="xs" c="dimmed">
                {change(figure)}
              </Text>
            </Stack>
          ))}
        </Group>
        <Text size="xs" c="dimmed">
          Net of reversals: an undone visit is not earned, a reversed redemption is not redeemed.
          Earned − redeemed − expired + adjusted is the change of points outstanding. Changes
          against the {previousLabel.toLowerCase()}.
        </Text>
      </Tile>
      <Tile title="Offers claimed → redeemed">
        <Big label="offers">
          {formatCount(tiles.offers_claimed.current)} → {formatCount(tiles.offers_redeemed.current)}
        </Big>
        <Text size="sm">{rate === null ? 'No claims this period' : `${rate}% redeemed`}</Text>
        <Previous figure={tiles.offers_claimed} label={`Claimed, ${previousLabel.toLowerCase()}`} />
      </Tile>
      <Tile title="Appointments today">
        <Big label="appointments">
          {formatCount(tiles.appointments_completed.current)} of{' '}
          {formatCount(tiles.appointments_booked.current)}
        </Big>
        <Text size="sm">completed of booked</Text>
        <Text size="xs" c="dimmed">
          Yesterday: {formatCount(tiles.appointments_completed.previous)} of{' '}
          {formatCount(tiles.appointments_booked.previous)}
        </Text>
      </Tile>
    </SimpleGrid>
  )
}
