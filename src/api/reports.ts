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
