/**
 * Vitest's global setup for the node project: migrates and seeds the template databases once for
 * the run (server/testing/db-templates.ts) and hands them to the test workers; removes them when
 * the run ends.
 */
import { createDbTemplates, DB_TEMPLATES_ENV } from '#server/testing/db-templates.ts'

export default async function setup() {
  const started = performance.now()
  const { templates, dispose } = await createDbTemplates(
    `.tmp/vitest-templates/${process.pid}`,
    process.env.TEST_DATABASE_URL?.trim() || undefined,
  )
  process.env[DB_TEMPLATES_ENV] = JSON.stringify(templates)
  console.log(
    `Template databases ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${templates.postgres ? 'PGlite and PostgreSQL' : 'PGlite'}).`,
  )
  return dispose
}
