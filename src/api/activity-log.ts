import { type ActivityFilter, type ActivityPage, ActivityPageSchema } from '#domain/activity-log.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { fileNameOf } from '#src/api/reports.ts'
import { http } from '#src/lib/http.ts'

export type { ActivityFilter }

const params = (filter: ActivityFilter) =>
  Object.fromEntries(
    Object.entries(filter).filter(([, value]) => value !== undefined && value !== ''),
  ) as Record<string, string | number>

/** `GET /audit` (Admin): a page of the practice's events in words, newest first. */
export async function getActivity(filter: ActivityFilter): Promise<ActivityPage> {
  return parseAnswer(
    'GET /api/audit',
    ActivityPageSchema,
    await http.get('audit', { searchParams: { ...params(filter), pageSize: 25 } }).json(),
  )
}

/** `GET /audit/export.csv` (Admin): the events of the filter, every page, as a CSV file. */
export async function fetchActivityCsv(
  filter: ActivityFilter,
): Promise<{ blob: Blob; fileName: string }> {
  const { page: _page, ...rest } = filter
  const response = await http.get('audit/export.csv', {
    searchParams: params(rest),
    timeout: 120_000,
    retry: 0,
  })
  return {
    blob: await response.blob(),
    fileName: fileNameOf(response.headers.get('Content-Disposition'), 'activity'),
  }
}
