/**
 * What every CSV export of the practice's data shares: the file streamed a page at a time, and
 * the answer that puts it on record (which report, never a value) and sends it as an attachment
 * no cache keeps.
 */
import type { Context } from 'hono'
import { type CsvValue, csvRow } from '#domain/csv.ts'
import { userEvent } from '#server/audit/audit.ts'
import type { AppEnv, ServerContext } from '#server/context.ts'

/** Rows read per query. */
export const EXPORT_PAGE_SIZE = 500

/** One row of an export: its id (the keyset of the next page) and its cells. */
export type CsvPageRow = { id: number; cells: CsvValue[] }

/**
 * A stream of CSV text: the header, then each page `next(last)` gives, `last` the id of the
 * previous page's last row (undefined for the first page), until a page is short or empty. Pages
 * are read by keyset, never by offset, so a large practice never sits in memory.
 */
export function csvStream(
  header: readonly string[],
  next: (last: number | undefined) => Promise<CsvPageRow[]>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let last: number | undefined
  let started = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true
        controller.enqueue(encoder.encode(csvRow(header)))
        return
      }
      const rows = await next(last)
      if (rows.length === 0) {
        controller.close()
        return
      }
      controller.enqueue(encoder.encode(rows.map((row) => csvRow(row.cells)).join('')))
      last = rows[rows.length - 1]?.id ?? last
      if (rows.length < EXPORT_PAGE_SIZE) controller.close()
    },
  })
}

/**
 * Answers a CSV export and records it: the audit event `report.exported` naming `report` (an
 * export reads; it changes nothing, so it needs no transaction), then `body` as the attachment
 * `filename`.
 */
export async function answerCsvExport(
  ctx: ServerContext,
  c: Context<AppEnv>,
  file: { report: string; filename: string; body: string | ReadableStream<Uint8Array> },
) {
  await ctx.audit.record(
    userEvent('report.exported', c.var.user, ctx.clientIp(c), { report: file.report }),
  )
  return c.body(file.body, 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${file.filename}"`,
    'Cache-Control': 'no-store',
  })
}
