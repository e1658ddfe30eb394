import { Hono } from 'hono'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { patientImportRoutes } from './import-routes.ts'
import { patientMergeRoutes } from './merge-routes.ts'
import { patientRecordRoutes } from './routes.ts'

export { activityRoutes } from './activity-routes.ts'

/**
 * Everything the module serves under `/patients`, mounted once: the import, the duplicates and
 * merges, then the records. In this order, so that the records' `/{id}` never reads `import` or
 * `duplicates` as an id.
 */
export function patientRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .route('/import', patientImportRoutes(ctx))
    .route('/', patientMergeRoutes(ctx))
    .route('/', patientRecordRoutes(ctx))
}
