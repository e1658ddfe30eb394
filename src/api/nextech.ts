import {
  type NextechBackfill,
  NextechBackfillSchema,
  type NextechReviewItem,
  NextechReviewPageSchema,
  type NextechRun,
  NextechRunSchema,
  NextechRunStartedSchema,
  type NextechServiceCode,
  type NextechStatus,
  NextechStatusSchema,
  type NextechTestAnswer,
  NextechTestAnswerSchema,
  NextechUnmappedPageSchema,
} from '#domain/nextech.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /practice/integrations/nextech`: the connection, in words (never the credentials). */
export async function getNextechStatus(): Promise<NextechStatus> {
  return parseAnswer(
    'GET /api/practice/integrations/nextech',
    NextechStatusSchema,
    await http.get('practice/integrations/nextech').json(),
  )
}

/** `POST /practice/integrations/nextech/test` (Admin): signs in at Nextech and reads a patient. */
export async function testNextechConnection(): Promise<NextechTestAnswer> {
  return parseAnswer(
    'POST /api/practice/integrations/nextech/test',
    NextechTestAnswerSchema,
    await http.post('practice/integrations/nextech/test').json(),
  )
}

/** `POST /practice/integrations/nextech/sync` (Admin): starts a sync (202), or names the one going. */
export async function startNextechSync(): Promise<number> {
  const answer = parseAnswer(
    'POST /api/practice/integrations/nextech/sync',
    NextechRunStartedSchema,
    await http.post('practice/integrations/nextech/sync').json(),
  )
  return answer.run_id
}

/** `GET /practice/integrations/nextech/runs/{id}` (Admin): a sync run, running, done or failed. */
export async function getNextechRun(id: number): Promise<NextechRun> {
  return parseAnswer(
    'GET /api/practice/integrations/nextech/runs/:id',
    NextechRunSchema,
    await http.get(`practice/integrations/nextech/runs/${id}`).json(),
  )
}

/** `GET /practice/integrations/nextech/review` (Admin): what the sync would not guess. */
export async function listNextechReview(): Promise<NextechReviewItem[]> {
  const page = parseAnswer(
    'GET /api/practice/integrations/nextech/review',
    NextechReviewPageSchema,
    await http.get('practice/integrations/nextech/review').json(),
  )
  return page.items
}

/**
 * `POST /practice/integrations/nextech/review/{id}` (Admin): links, creates, ignores or awards;
 * answers the items still open.
 */
export async function resolveNextechReview(
  id: number,
  action: Body<'POST /api/practice/integrations/nextech/review/:id'>,
): Promise<NextechReviewItem[]> {
  const page = parseAnswer(
    'POST /api/practice/integrations/nextech/review/:id',
    NextechReviewPageSchema,
    await http.post(`practice/integrations/nextech/review/${id}`, { json: action }).json(),
  )
  return page.items
}

/** `GET /practice/integrations/nextech/unmapped` (Admin): the service codes, unmapped first. */
export async function listNextechServiceCodes(): Promise<NextechServiceCode[]> {
  const page = parseAnswer(
    'GET /api/practice/integrations/nextech/unmapped',
    NextechUnmappedPageSchema,
    await http.get('practice/integrations/nextech/unmapped').json(),
  )
  return page.codes
}

/**
 * `PUT /practice/integrations/nextech/unmapped/{code}` (Admin): maps a service code to a
 * catalogue item, for later bills and, when asked, the bills already synced; answers the codes.
 */
export async function mapNextechServiceCode(
  code: string,
  mapping: Body<'PUT /api/practice/integrations/nextech/unmapped/:code'>,
): Promise<NextechServiceCode[]> {
  const page = parseAnswer(
    'PUT /api/practice/integrations/nextech/unmapped/:code',
    NextechUnmappedPageSchema,
    await http
      .put(`practice/integrations/nextech/unmapped/${encodeURIComponent(code)}`, { json: mapping })
      .json(),
  )
  return page.codes
}

/**
 * `POST /practice/integrations/nextech/backfill` (Admin): awards the synced bills dated from
 * `since` up to the day bills started earning, once each; with `preview` it answers the totals
 * and changes nothing.
 */
export async function backfillNextech(
  input: Body<'POST /api/practice/integrations/nextech/backfill'>,
): Promise<NextechBackfill> {
  return parseAnswer(
    'POST /api/practice/integrations/nextech/backfill',
    NextechBackfillSchema,
    await http.post('practice/integrations/nextech/backfill', { json: input }).json(),
  )
}
