import type {
  NextechBackfill,
  NextechCodeMapping,
  NextechReviewAction,
  NextechReviewItem,
  NextechRun,
  NextechServiceCode,
} from '#domain/nextech.ts'
import { listCatalogue } from '#src/api/catalogue.ts'
import type { Body } from '#src/api/contract.ts'
import {
  backfillNextech,
  getNextechRun,
  listNextechReview,
  listNextechServiceCodes,
  mapNextechServiceCode,
  resolveNextechReview,
  startNextechSync,
} from '#src/api/nextech.ts'
import { readSession } from '#src/lib/session.ts'

/** A catalogue item a service code can be mapped to. */
export type CatalogueChoice = { kind: 'procedure' | 'product'; id: number; name: string }

/**
 * The calls of the Nextech sync in Settings (Admin). They throw as the API client does; the views
 * turn a failure into its sentence. `wait` is the pause between two looks at a running sync, so
 * that a test decides when the next look happens.
 */
export type NextechSyncCalls = {
  startSync(): Promise<number>
  getRun(id: number): Promise<NextechRun>
  listReview(): Promise<NextechReviewItem[]>
  resolveReview(id: number, action: NextechReviewAction): Promise<NextechReviewItem[]>
  listCodes(): Promise<NextechServiceCode[]>
  mapCode(code: string, mapping: NextechCodeMapping): Promise<NextechServiceCode[]>
  /** The practice's procedures and products that are not archived, procedures first. */
  listCatalogue(): Promise<CatalogueChoice[]>
  /** The bills made before the award day: what they would earn (`preview`), or awards them. */
  backfill(
    input: Body<'POST /api/practice/integrations/nextech/backfill'>,
  ): Promise<NextechBackfill>
  wait(ms: number): Promise<void>
}

/** The catalogue of the signed-in practice: its procedures, then its products. */
async function catalogueChoices(): Promise<CatalogueChoice[]> {
  const practiceId = readSession()?.practice.id
  if (practiceId === undefined) return []
  const [procedures, products] = await Promise.all([
    listCatalogue('procedures', practiceId),
    listCatalogue('products', practiceId),
  ])
  return [
    ...procedures.map((item) => ({ kind: 'procedure' as const, id: item.id, name: item.name })),
    ...products.map((item) => ({ kind: 'product' as const, id: item.id, name: item.name })),
  ]
}

/** The real calls: the API, and a pause on the clock. */
export const nextechSyncCalls: NextechSyncCalls = {
  startSync: startNextechSync,
  getRun: getNextechRun,
  listReview: listNextechReview,
  resolveReview: resolveNextechReview,
  listCodes: listNextechServiceCodes,
  mapCode: mapNextechServiceCode,
  listCatalogue: catalogueChoices,
  backfill: backfillNextech,
  wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}
