import { createFileRoute, stripSearchParams } from '@tanstack/react-router'
import * as v from 'valibot'
import { AUDIT_ACTIONS } from '#domain/audit-actions.ts'
import { type ActivityFilter, fetchActivityCsv, getActivity } from '#src/api/activity-log.ts'
import { listUsers } from '#src/api/users.ts'
import { ActivityLog } from '#src/features/settings/activity-log.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { AnchorLink } from '#src/ui/links.tsx'

const day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/))

/** The log's filter in the address, so a reload or a shared link shows the same events. */
const ActivitySearchSchema = v.object({
  actor: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  action: v.optional(v.picklist(AUDIT_ACTIONS)),
  from: v.optional(day),
  to: v.optional(day),
  page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
})

/** The start of a local day and the start of the day after another, as the API's instants. */
function localBounds(filter: ActivityFilter): ActivityFilter {
  const startOf = (date: string, addDays = 0) => {
    const local = new Date(`${date}T00:00`)
    local.setDate(local.getDate() + addDays)
    return local.toISOString()
  }
  return {
    ...filter,
    from: filter.from ? startOf(filter.from) : undefined,
    to: filter.to ? startOf(filter.to, 1) : undefined,
  }
}

export const Route = createFileRoute('/_shell/settings_/activity')({
  validateSearch: (search): ActivityFilter => {
    // A bad value in a hand-edited address is dropped, not an error page.
    const parsed = v.safeParse(ActivitySearchSchema, search)
    if (parsed.success) return parsed.output
    return Object.fromEntries(
      Object.entries(ActivitySearchSchema.entries).flatMap(([key, schema]) => {
        const one = v.safeParse(schema, search[key])
        return one.success && one.output !== undefined ? [[key, one.output]] : []
      }),
    )
  },
  search: { middlewares: [stripSearchParams<ActivityFilter>({ page: 1 })] },
  loaderDeps: ({ search }) => search,
  loader: ({ deps }) =>
    loadData(async () => {
      const [page, staff] = await Promise.all([getActivity(localBounds(deps)), listUsers()])
      return { page, staff }
    }),
  component: ActivityLogPage,
})

function ActivityLogPage() {
  const { page, staff } = Route.useLoaderData()
  const filter = Route.useSearch()
  const navigate = Route.useNavigate()
  return (
    <AreaPage
      title="Activity log"
      description="Who did what in your practice, and when. Opening this log is on record too."
    >
      <AnchorLink to="/settings" size="sm">
        Back to Settings
      </AnchorLink>
      <ActivityLog
        page={page}
        filter={filter}
        staff={staff}
        onFilter={(next) => void navigate({ search: next, replace: next.page === 1 })}
        download={() => fetchActivityCsv(localBounds(filter))}
      />
    </AreaPage>
  )
}
