import { Center, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { createFileRoute, stripSearchParams } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import { periodDays, WORKLIST_LISTS, type WorklistList } from '#domain/report-period.ts'
import { fetchReport, getWorklist } from '#src/api/reports.ts'
import { DashboardTiles } from '#src/features/dashboard/dashboard-tiles.tsx'
import { Worklist } from '#src/features/dashboard/worklist.tsx'
import { formatDate } from '#src/lib/format.ts'
import { loadData } from '#src/lib/load-data.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { ExportCsvButton } from '#src/ui/export-csv-button.tsx'
import { ButtonLink } from '#src/ui/links.tsx'

// The charts (Mantine Charts and recharts) come in a chunk of their own after the numbers.
const DashboardCharts = lazy(() =>
  import('#src/features/dashboard/dashboard-charts.tsx').then((module) => ({
    default: module.DashboardCharts,
  })),
)

/** The open worklist and its page in the address, so a reload or a shared link shows the same. */
const DashboardSearchSchema = v.object({
  list: v.optional(v.picklist(WORKLIST_LISTS)),
  page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
})
type DashboardSearch = { list?: WorklistList; page?: number }

export const Route = createFileRoute('/_shell/dashboard')({
  validateSearch: (search): DashboardSearch => {
    // A bad value in a hand-edited address is dropped, not an error page.
    const parsed = v.safeParse(DashboardSearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  search: { middlewares: [stripSearchParams<DashboardSearch>({ list: 'expiring', page: 1 })] },
  loader: () =>
    loadData(async () => {
      // The API module (and its answer schemas) loads with the dashboard, not with every page.
      const { getReportSummary, getWorklist } = await import('#src/api/reports.ts')
      // Counted in the database: the dashboard never loads the patient table or the ledger.
      const [summary, expiring, lapsing, offersEnding, appointments, pastDue, cards] =
        await Promise.all([
          getReportSummary(),
          getWorklist('expiring', 1),
          getWorklist('lapsing', 1),
          getWorklist('offers-ending', 1),
          getWorklist('appointments', 1),
          getWorklist('memberships-past-due', 1),
          getWorklist('cards-expiring', 1),
        ])
      return {
        summary,
        worklist: {
          expiring,
          lapsing,
          'offers-ending': offersEnding,
          appointments,
          'memberships-past-due': pastDue,
          'cards-expiring': cards,
        } satisfies Record<WorklistList, unknown>,
      }
    }),
  component: DashboardPage,
})

/** Keeps the space of the charts while their chunk arrives, so nothing below moves. */
function ChartsPlaceholder() {
  return (
    <Paper withBorder p="md" radius="md" aria-busy="true" mih={380}>
      <Center mih={340}>
        <Loader size="sm" aria-label="Loading the charts" />
      </Center>
    </Paper>
  )
}

function DashboardPage() {
  const { summary, worklist } = Route.useLoaderData()
  const search = Route.useSearch()
  const navigate = Route.useNavigate()
  const practice = Route.useRouteContext({ select: (context) => context.session.practice })
  const money = Route.useRouteContext({
    select: (context) => can(toRole(context.session.user.access_rights), 'reports.money'),
  })
  const { period } = summary
  const days = periodDays(period.from, period.to)
  const range = `${formatDate(`${period.from}T12:00:00Z`)} – ${formatDate(`${period.to}T12:00:00Z`)}`
  return (
    <AreaPage title="Dashboard" description={practice.practice_name}>
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Text size="sm">
          This month so far: <strong>{range}</strong>, against the {days} days before.
        </Text>
        {money && (
          <ButtonLink to="/dashboard/liability" variant="default">
            Liability report
          </ButtonLink>
        )}
      </Group>
      <DashboardTiles summary={summary} previousLabel={`Previous ${days} days`} />
      <Worklist
        first={worklist}
        list={search.list ?? 'expiring'}
        page={search.page ?? 1}
        onChange={(list, page) =>
          navigate({ search: { list, page }, replace: true, resetScroll: false })
        }
        load={getWorklist}
      />
      <section aria-labelledby="charts-title">
        <Stack gap="sm">
          <Title order={2} size="h4" id="charts-title">
            The last 12 months
          </Title>
          <Suspense fallback={<ChartsPlaceholder />}>
            <DashboardCharts months={summary.months} offers={summary.offers} />
          </Suspense>
        </Stack>
      </section>
      {money && (
        <Paper withBorder p="md" radius="md">
          <Stack gap="sm">
            <Title order={2} size="h4">
              Exports
            </Title>
            <Text size="sm" c="dimmed">
              Every points entry of the practice (earned, redeemed, adjusted, expired, reversed),
              with the patient and the staff member, for your accountant or your own sheets.
            </Text>
            <Group>
              <ExportCsvButton download={() => fetchReport('ledger')} label="Export ledger CSV" />
            </Group>
          </Stack>
        </Paper>
      )}
    </AreaPage>
  )
}
