import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { CATALOGUE_MESSAGES } from '#domain/practice-data.ts'
import { MIGRATIONS_FOLDER } from '#server/db/client.ts'
import { procedures, products } from '#server/db/schema.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

/**
 * Catalogue names are unique per practice among active items, case and spaces aside:
 * the API refuses a second one with a sentence naming the item that has it, and the database's
 * partial unique index (migration 0028) holds the rule for anything that gets past the check.
 */
describe.each(testBackends())('catalogue names on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')

  const call = async (
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ) => {
    const response = await t.request(`/api${path}`, {
      token: manager.token,
      method: 'POST',
      ...init,
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const item = (name: string) => ({ name, price: 1_000, points: null, min_days_between: 0 })

  it.each(['procedures', 'products'] as const)(
    'refuses a second active %s of the same name, in any case, naming the one that has it',
    async (kind) => {
      const first = await call(`/${kind}`, { json: item(`Botox (per unit) ${kind}`) })
      expect(first.status).toBe(201)
      const again = await call(`/${kind}`, {
        json: item(`  BOTOX (PER UNIT) ${kind.toUpperCase()} `),
      })
      expect(again.status).toBe(409)
      expect(again.body.error).toMatchObject({
        message: CATALOGUE_MESSAGES.nameTaken(`Botox (per unit) ${kind}`),
        details: { field: 'name', existing_id: first.body.id },
      })
      expect((again.body.error as { message: string }).message).toBe(
        `"Botox (per unit) ${kind}" is already in your catalogue. Please choose another name, or archive that item first.`,
      )

      // Renaming another item to it is refused too; saving an item under its own name is not.
      const second = await call(`/${kind}`, { json: item(`Filler ${kind}`) })
      const rename = await call(`/${kind}/${second.body.id}`, {
        method: 'PUT',
        json: item(`botox (per unit) ${kind}`),
      })
      expect(rename.status).toBe(409)
      expect(
        (
          await call(`/${kind}/${first.body.id}`, {
            method: 'PUT',
            json: item(`Botox (Per Unit) ${kind}`),
          })
        ).status,
      ).toBe(200)

      // Another practice may use the name.
      const elsewhere = await call(`/${kind}`, {
        token: other.token,
        json: item(`Botox (per unit) ${kind}`),
      })
      expect(elsewhere.status).toBe(201)
    },
  )

  it('lets an archived item give up its name, and refuses to restore it while another has it', async () => {
    const old = await call('/procedures', { json: item('Lip Flip') })
    expect((await call(`/procedures/${old.body.id}/archive`)).status).toBe(200)
    const fresh = await call('/procedures', { json: item('lip flip') })
    expect(fresh.status).toBe(201)
    // An archived item may be renamed freely; restoring it brings its name back.
    expect(
      (await call(`/procedures/${old.body.id}`, { method: 'PUT', json: item('Lip Flip') })).status,
    ).toBe(200)
    const restore = await call(`/procedures/${old.body.id}/restore`)
    expect(restore.status).toBe(409)
    expect((restore.body.error as { message: string }).message).toBe(
      CATALOGUE_MESSAGES.nameTaken('lip flip'),
    )
  })

  it('is held by the database: a second active row of the name cannot be written', async () => {
    await t.db
      .insert(products)
      .values({ practice_id: t.demo.practiceId, name: 'Serum Duo', price: 100 })
    await expect(
      t.db
        .insert(products)
        .values({ practice_id: t.demo.practiceId, name: ' serum duo ', price: 100 }),
    ).rejects.toThrow()
    await t.db.insert(products).values({
      practice_id: t.demo.practiceId,
      name: 'Serum Duo',
      price: 100,
      archived_at: new Date(),
    })
  })

  it('migrates active duplicates by naming them apart instead of failing', async () => {
    const migration = readFileSync(
      join(MIGRATIONS_FOLDER, '0028_catalogue_unique_names.sql'),
      'utf8',
    ).split('--> statement-breakpoint')
    // The catalogue as it could be before the migration: the index gone, duplicates stored.
    await t.db.execute(sql`drop index procedures_practice_active_name_unique`)
    await t.db.execute(sql`drop index products_practice_active_name_unique`)
    const practiceId = other.practiceId
    const rows = await t.db
      .insert(procedures)
      .values(
        ['Peel Plus', 'peel plus ', 'PEEL PLUS', 'Peel Plus'].map((name, i) => ({
          practice_id: practiceId,
          name,
          price: 100,
          archived_at: i === 3 ? new Date() : null,
        })),
      )
      .returning({ id: procedures.id })
    for (const statement of migration) await t.db.execute(sql.raw(statement))
    const names = await t.db
      .select({ id: procedures.id, name: procedures.name })
      .from(procedures)
      .where(and(eq(procedures.practice_id, practiceId), sql`lower(btrim(name)) like 'peel plus%'`))
      .orderBy(procedures.id)
    const [a, b, c, d] = rows.map((row) => row.id)
    expect(names).toEqual([
      { id: a, name: 'Peel Plus' },
      { id: b, name: `peel plus  (duplicate ${b})` },
      { id: c, name: `PEEL PLUS (duplicate ${c})` },
      // Archived items keep their names.
      { id: d, name: 'Peel Plus' },
    ])
    await expect(
      t.db.insert(procedures).values({ practice_id: practiceId, name: 'peel plus', price: 1 }),
    ).rejects.toThrow()
  })
})
