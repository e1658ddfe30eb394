import { createFileRoute } from '@tanstack/react-router'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import { MembershipDashboard } from '#src/features/dashboard/membership-dashboard.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'

const day = v.pipe(v.string(), v.isoDate())

/** The period in the address, so a reload or a shared link shows the same. */
const MembershipDashboardSearchSchema = v.object({ from: v.optional(day), to: v.optional(day) })
type MembershipDashboardSearch = v.InferOutput<typeof MembershipDashboardSearchSchema>

export const Route = createFileRoute('/_shell/memberships_/dashboard')({
  validateSearch: (search): MembershipDashboardSearch => {
    // A bad value in a hand-edited address is dropped, not an error page.
    const parsed = v.safeParse(MembershipDashboardSearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  loaderDeps: ({ search }) => search,
  loader: ({ deps }) =>
    loadData(async () => {
      // The API module (and its answer schemas) loads with the dashboard, not with every page.
      // Without a period the server answers the 12 months to its (the billing clock's) today.
      const { getMembershipReport } = await import('#src/api/reports.ts')
      return getMembershipReport(deps)
    }),
  component: MembershipDashboardPage,
})

function MembershipDashboardPage() {
  const report = Route.useLoaderData()
  const navigate = Route.useNavigate()
  const moneyShown = Route.useRouteContext({
    select: (context) => can(toRole(context.session.user.access_rights), 'reports.money'),
  })
  return (
    <AreaPage
      title="Memberships dashboard"
      description={
        <>
          Members, churn and failed payments{moneyShown ? ', MRR and the membership bank' : ''},
          month by month.{' '}
          <AnchorLink to="/memberships" underline="always">
            Back to the plans and members
          </AnchorLink>
        </>
      }
    >
      <MembershipDashboard
        report={report}
        moneyShown={moneyShown}
        onPeriod={(period) => navigate({ search: period })}
        download={async () => {
          const { fetchMembershipReportCsv } = await import('#src/api/reports.ts')
          return fetchMembershipReportCsv({ from: report.from, to: report.to })
        }}
      />
    </AreaPage>
  )
}
