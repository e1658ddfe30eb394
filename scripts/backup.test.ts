/**
 * Finding 12: `npm run backup` snapshots the embedded database and `npm run restore`
 * brings it back, refusing to replace a database without --force. Run as the operator runs them.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '#server/db/client.ts'
import { coupons, patients, practices } from '#server/db/schema.ts'
import { seedIfEmpty } from '#server/demo/seed.ts'

function npmScript(script: string, args: string[], dataDir: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 120_000,
  })
}

/** Every patient and coupon, as the comparison of before and after. */
async function snapshot(dataDir: string) {
  const database = await openDatabase({ dataDir, migrate: false })
  try {
    return {
      patients: await database.db
        .select({
          id: patients.id,
          first_name: patients.first_name,
          email: patients.email,
          archived_at: patients.archived_at,
        })
        .from(patients)
        .orderBy(asc(patients.id)),
      coupons: await database.db.select().from(coupons).orderBy(asc(coupons.id)),
    }
  } finally {
    await database.close()
  }
}

describe('npm run backup and npm run restore', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'glow-backup-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('backs up, and restores what was backed up after the data changed', async () => {
    const dataDir = join(dir, 'data')
    const database = await openDatabase({ dataDir })
    await seedIfEmpty(database.db, { publicUrl: 'http://localhost:3000' })
    await database.close()
    const backedUp = await snapshot(dataDir)
    expect(backedUp.patients.length).toBeGreaterThan(0)

    const file = join(dir, 'glow.tar.gz')
    const backup = npmScript('backup', [file], dataDir)
    expect(backup.stderr).toBe('')
    expect(backup.status).toBe(0)
    expect(backup.stdout).toContain(`Backed up ${dataDir} to ${file}`)
    expect(existsSync(file)).toBe(true)

    // The data changes after the backup: a patient renamed, one archived (patients are never
    // deleted: their ledger is append-only), a coupon added.
    const changing = await openDatabase({ dataDir, migrate: false })
    const [first, second] = backedUp.patients
    await changing.db
      .update(patients)
      .set({ first_name: 'Changed' })
      .where(eq(patients.id, first?.id ?? 0))
    await changing.db
      .update(patients)
      .set({ archived_at: new Date('2026-06-01T00:00:00Z') })
      .where(eq(patients.id, second?.id ?? 0))
    await changing.db.insert(coupons).values({ id: 'AFTER', percent_off: 5, public: false })
    await changing.db.update(practices).set({ city: 'Elsewhere' })
    await changing.close()
    const changed = await snapshot(dataDir)
    expect(changed).not.toEqual(backedUp)

    // Without --force the current database is not replaced.
    const refused = npmScript('restore', [file], dataDir)
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain(
      `${join(dataDir, 'pglite')} already holds a database. Restoring replaces it: run again with --force`,
    )
    expect(await snapshot(dataDir)).toEqual(changed)

    const restored = npmScript('restore', [file, '--force'], dataDir)
    expect(restored.stderr).toBe('')
    expect(restored.status).toBe(0)
    expect(restored.stdout).toContain(`Restored ${file} into ${dataDir}`)
    expect(await snapshot(dataDir)).toEqual(backedUp)
    // The replaced database is kept beside it, not deleted.
    expect(readdirSync(dataDir).some((name) => name.startsWith('pglite.before-restore-'))).toBe(
      true,
    )
  }, 300_000)
})
