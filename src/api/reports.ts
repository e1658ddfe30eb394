import { type MembershipReport, MembershipReportSchema } from '#domain/membership-reports.ts'
import {
  type LiabilityReport,
  LiabilityReportSchema,
  type ReportSummary,
  ReportSummarySchema,
  type WorklistList,
  type WorklistPage,
  WorklistPageSchema,
} from '#domain/reports.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** The CSV exports of the server (Manager, Admin). */
export type ReportName = 'patients' | 'ledger'

/** An export can be large: it may take longer than an ordinary call, and is never retried. */
const EXPORT_TIMEOUT_MS = 120_000

/** The file name the server gave in Content-Disposition, else `<report>.csv`. */
export function fileNameOf(disposition: string | null, report: string): string {
  const match = /filename="([^"]+)"/.exec(disposition ?? '')
  return match?.[1] ?? `${report}.csv`
}

/** `GET /reports/{report}.csv`: the file and its name. */
export async function fetchReport(report: ReportName): Promise<{ blob: Blob; fileName: string }> {
  const response = await http.get(`reports/${report}.csv`, {
    timeout: EXPORT_TIMEOUT_MS,
    retry: 0,
  })
  return {
    blob: await response.blob(),
    fileName: fileNameOf(response.headers.get('Content-Disposition'), report),
  }
}

/** `GET /reports/summary`: the dashboard's tiles, months and live offers for a period. */
export async function getReportSummary(
  period: { from?: string | undefined; to?: string | undefined } = {},
): Promise<ReportSummary> {
  const searchParams = Object.fromEntries(
    Object.entries(period).filter((entry): entry is [string, string] => Boolean(entry[1])),
  )
  return parseAnswer(
    'GET /api/reports/summary',
    ReportSummarySchema,
    await http.get('reports/summary', { searchParams }).json(),
  )
}

/** `GET /reports/worklist`: one page of one of the worklist's lists. */
export async function getWorklist(list: WorklistList, page: number): Promise<WorklistPage> {
  return parseAnswer(
    'GET /api/reports/worklist',
    WorklistPageSchema,
    await http.get('reports/worklist', { searchParams: { list, page } }).json(),
  )
}

/** `GET /reports/liability`: the points liability of a period (Manager, Admin). */
export async function getLiability(period: { from: string; to: string }): Promise<LiabilityReport> {
  return parseAnswer(
    'GET /api/reports/liability',
    LiabilityReportSchema,
    await http.get('reports/liability', { searchParams: period }).json(),
  )
}

/** `GET /reports/liability.csv`: the liability report as a file for the accountant. */
export async function fetchLiabilityCsv(period: {
  from: string
  to: string
}): Promise<{ blob: Blob; fileName: string }> {
  const response = await http.get('reports/liability.csv', { searchParams: period, retry: 0 })
  return {
    blob: await response.blob(),
    fileName: fileNameOf(response.headers.get('Content-Disposition'), 'liability'),
  }
}

/** `GET /reports/memberships`: the memberships dashboard of a period (money for Managers and Admins). */
export async function getMembershipReport(
  period: { from?: string | undefined; to?: string | undefined } = {},
): Promise<MembershipReport> {
  const searchParams = Object.fromEntries(
    Object.entries(period).filter((entry): entry is [string, string] => Boolean(entry[1])),
  )
  return parseAnswer(
    'GET /api/reports/memberships',
    MembershipReportSchema,
    await http.get('reports/memberships', { searchParams }).json(),
  )
}

/** `GET /reports/memberships.csv`: the same numbers as a file (Staff: the counts only). */
export async function fetchMembershipReportCsv(period: {
  from: string
  to: string
}): Promise<{ blob: Blob; fileName: string }> {
  const response = await http.get('reports/memberships.csv', { searchParams: period, retry: 0 })
  return {
    blob: await response.blob(),
    fileName: fileNameOf(response.headers.get('Content-Disposition'), 'memberships'),
  }
}
