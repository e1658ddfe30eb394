import { and, eq, inArray, isNull, ne } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { users } from '#server/db/schema.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { createMember, testBackends } from '#server/testing/test-app.ts'

const ROUNDS = 24

// Two Admins of one practice removing each other at the same moment through one server: on
// PostgreSQL the two requests run on two connections at once (the pool), on PGlite one after the
// other. Either way exactly one removal happens, the other is refused, and nothing answers 5xx.
describe.each(testBackends())('two Admins removing each other at once on $name', (backend) => {
  const t = useTestApp(backend)
  let first: { id: number; token: string }
  let second: { id: number; token: string }

  beforeAll(async () => {
    // Exactly two Admins, so that the "last Admin" rule decides every round.
    await t.db
      .update(users)
      .set({ access_rights: 'Manager' })
      .where(
        and(
          eq(users.practice_id, t.demo.practiceId),
          eq(users.access_rights, 'Admin'),
          ne(users.id, t.demo.admin.id),
        ),
      )
    const other = await createMember(t.db, t.demo.practiceId, 'Admin')
    first = { id: t.demo.admin.id, token: t.demo.adminToken }
    second = { id: other.user.id, token: other.token }
  })

  const remove = (actor: { token: string }, member: { id: number }, demote: boolean) =>
    t.request(demote ? `/api/users/${member.id}/role` : `/api/users/${member.id}/deactivate`, {
      method: demote ? 'PUT' : 'POST',
      token: actor.token,
      ...(demote ? { json: { access_rights: 'Staff' } } : {}),
    })

  it('removes exactly one of them each round and answers the other with a refusal', async () => {
    const tally = new Map<number, number>()
    for (let round = 0; round < ROUNDS; round++) {
      await t.db
        .update(users)
        .set({ access_rights: 'Admin', deactivated_at: null, tokens_valid_after: null })
        .where(inArray(users.id, [first.id, second.id]))
      const answers = await Promise.all([
        remove(first, second, round % 2 === 0),
        remove(second, first, round % 4 < 2),
      ])
      const bodies = await Promise.all(
        answers.map(async (response) => ({
          status: response.status,
          message: ((await response.json()) as { error?: { message?: string } }).error?.message,
        })),
      )
      const where = `round ${round + 1}: ${JSON.stringify(bodies)}`
      for (const { status, message } of bodies) {
        tally.set(status, (tally.get(status) ?? 0) + 1)
        expect([200, 401, 403, 409], where).toContain(status)
        if (status === 409) expect(message, where).toBe(SELF_SERVICE_MESSAGES.lastAdmin)
      }
      expect(bodies.filter((body) => body.status === 200).length, where).toBe(1)
      const active = await t.db
        .select({ id: users.id })
        .from(users)
        .where(
          and(
            eq(users.practice_id, t.demo.practiceId),
            eq(users.access_rights, 'Admin'),
            isNull(users.deactivated_at),
          ),
        )
      expect(active.length, where).toBe(1)
    }
    console.log(
      `Admin race on ${backend.name}: ${ROUNDS} rounds, statuses ${JSON.stringify(Object.fromEntries(tally))}`,
    )
  })
})
