import { createFileRoute } from '@tanstack/react-router'
import * as v from 'valibot'
import { dayOf, monthStart } from '#domain/report-period.ts'
import { fetchLiabilityCsv } from '#src/api/reports.ts'
import { LiabilityReportView } from '#src/features/dashboard/liability-report.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'

const day = v.pipe(v.string(), v.isoDate())

/** The period in the address, so a reload or a link for the accountant shows the same. */
const LiabilitySearchSchema = v.object({ from: v.optional(day), to: v.optional(day) })
type LiabilitySearch = v.InferOutput<typeof LiabilitySearchSchema>

export const Route = createFileRoute('/_shell/dashboard_/liability')({
  validateSearch: (search): LiabilitySearch => {
    const parsed = v.safeParse(LiabilitySearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  loaderDeps: ({ search }) => search,
  loader: ({ deps }) =>
    loadData(async () => {
      // The API module (and its answer schemas) loads with the report, not with every page.
      const { getLiability } = await import('#src/api/reports.ts')
      const to = deps.to ?? dayOf(new Date())
      return getLiability({ from: deps.from ?? monthStart(to), to })
    }),
  component: LiabilityPage,
})

function LiabilityPage() {
  const report = Route.useLoaderData()
  const navigate = Route.useNavigate()
  return (
    <AreaPage
      title="Points liability"
      description={
        <>
          What the practice owes its patients in points, and how it moved over a period.{' '}
          <AnchorLink to="/dashboard" underline="always">
            Back to the dashboard
          </AnchorLink>
        </>
      }
    >
      <LiabilityReportView
        key={`${report.period.from}-${report.period.to}`}
        report={report}
        onPeriod={(period) => navigate({ search: period })}
        download={() => fetchLiabilityCsv(report.period)}
      />
    </AreaPage>
  )
}
