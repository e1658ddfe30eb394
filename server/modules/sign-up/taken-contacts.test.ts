import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { users } from '#server/db/schema.ts'
import { DEMO_ADMIN, seedIfEmpty } from '#server/demo/seed.ts'
import { createTakenContacts } from './taken-contacts.ts'

describe('taken contacts', () => {
  let handle: DatabaseHandle
  beforeAll(async () => {
    handle = await openDatabase({ dataDir: 'memory' })
    await seedIfEmpty(handle.db, { publicUrl: 'http://localhost:3000' })
  })
  afterAll(async () => {
    await handle.close()
  })

  it('holds every e-mail lower-cased and every phone as digits', async () => {
    const taken = await createTakenContacts(handle.db, { now: () => 0 }).get()
    expect(taken.emails.has(DEMO_ADMIN.email.toLowerCase())).toBe(true)
    // The demo Admin's phone is 5552100101 (a valid North American number, so it can be verified).
    expect(taken.phones.has('5552100101')).toBe(true)
    expect(taken.emails.has('nobody@example.com')).toBe(false)
  })

  it('answers from one read until it is older than maxAgeMs, or invalidated', async () => {
    let now = 0
    const index = createTakenContacts(handle.db, { now: () => now, maxAgeMs: 2000 })
    const [first, second] = await Promise.all([index.get(), index.get()])
    expect(second).toBe(first)

    const [admin] = await handle.db
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(eq(users.email, DEMO_ADMIN.email))
    if (!admin) throw new Error('no demo Admin')
    await handle.db
      .update(users)
      .set({ email: 'renamed@example.com' })
      .where(eq(users.id, admin.id))
    try {
      now = 1999
      expect((await index.get()).emails.has('renamed@example.com')).toBe(false)
      now = 2000
      expect((await index.get()).emails.has('renamed@example.com')).toBe(true)

      await handle.db.update(users).set({ email: admin.email }).where(eq(users.id, admin.id))
      index.invalidate()
      expect((await index.get()).emails.has(admin.email)).toBe(true)
    } finally {
      await handle.db.update(users).set({ email: admin.email }).where(eq(users.id, admin.id))
    }
  })
})
