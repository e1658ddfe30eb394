import type { OperationDoc } from './operation.ts'

/**
 * Every operation of the API, keyed `METHOD /api/path` as Hono writes the route. A route the app
 * serves that is missing here, or an entry the app does not serve, fails
 * server/openapi/coverage.test.ts: a new route cannot ship undocumented.
 */
export const OPERATIONS: Record<string, OperationDoc> = {}
