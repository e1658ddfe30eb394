import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { CLUSTER_SECRETS, type Cluster, startCluster } from '#server/testing/server-processes.ts'
import { mintToken } from '#server/testing/test-app.ts'

/** How many times the two Admins go at each other (the review saw 2 deadlocks in 24 rounds). */
const ROUNDS = 32

/** What each Admin does to the other in a round: the four pairs, in turn. */
const MOVES = [
  ['demote', 'demote'],
  ['deactivate', 'deactivate'],
  ['demote', 'deactivate'],
  ['deactivate', 'demote'],
] as const

type Move = (typeof MOVES)[number][number]
type Admin = { id: number; practice_id: number; token: string }

// Two Admins demoting or deactivating each other at the same moment, one on
// each of two server processes on one PostgreSQL, locked the member's row and the Admins' rows in
// opposite orders; PostgreSQL aborted one with a deadlock and the API answered 500.
describe('two Admins removing each other on two processes', () => {
  let cluster: Cluster
  let sql: pg.Client
  let first: Admin
  let second: Admin

  const rows = async <T>(text: string, values: unknown[] = []) =>
    (await sql.query(text, values)).rows as T[]

  beforeAll(async () => {
    cluster = await startCluster({ label: 'admin_deadlock' })
    sql = new pg.Client({ connectionString: cluster.databaseUrl })
    await sql.connect()
    const [demo] = await rows<{ id: number; practice_id: number }>(
      'select id, practice_id from users where email = $1',
      [DEMO_ADMIN.email],
    )
    if (!demo) throw new Error('the demo Admin was not seeded')
    // Exactly two Admins in the practice, so that the "last Admin" rule decides every round.
    await sql.query(
      "update users set access_rights = 'Manager' where practice_id = $1 and access_rights = 'Admin' and id <> $2",
      [demo.practice_id, demo.id],
    )
    const [other] = await rows<{ id: number; practice_id: number }>(
      `insert into users (practice_id, email, password_hash, first_name, last_name, access_rights)
       values ($1, 'second.admin@example.com', 'not-a-real-hash', 'Sam', 'Second', 'Admin')
       returning id, practice_id`,
      [demo.practice_id],
    )
    if (!other) throw new Error('the second Admin was not created')
    const secret = CLUSTER_SECRETS.JWT_SECRET
    first = { ...demo, token: await mintToken(demo, { secret }) }
    second = { ...other, token: await mintToken(other, { secret }) }
  }, 400_000)
  afterAll(async () => {
    await sql?.end()
    await cluster?.close()
  }, 60_000)

  /** Both Admins active again, with their sessions valid. */
  async function reset() {
    await sql.query(
      "update users set access_rights = 'Admin', deactivated_at = null, tokens_valid_after = null where id = any($1)",
      [[first.id, second.id]],
    )
  }

  /** `actor` demotes (to Staff) or deactivates `member` through the server at `url`. */
  async function act(url: string, actor: Admin, move: Move, member: Admin) {
    const response = await fetch(
      move === 'demote'
        ? `${url}/api/users/${member.id}/role`
        : `${url}/api/users/${member.id}/deactivate`,
      {
        method: move === 'demote' ? 'PUT' : 'POST',
        headers: { authorization: `Bearer ${actor.token}`, 'content-type': 'application/json' },
        ...(move === 'demote' ? { body: JSON.stringify({ access_rights: 'Staff' }) } : {}),
      },
    )
    const body = (await response.json()) as { error?: { message?: string } }
    return { status: response.status, message: body.error?.message }
  }

  it('answers every round without a 5xx, and the practice always keeps an active Admin', async () => {
    const [a, b] = cluster.servers
    if (!a || !b) throw new Error('the cluster has fewer than two processes')
    const tally = new Map<number, number>()
    for (let round = 0; round < ROUNDS; round++) {
      await reset()
      const [firstMove, secondMove] = MOVES[round % MOVES.length] ?? MOVES[0]
      // Each Admin on a process of their own, both sent at once.
      const answers = await Promise.all([
        act(a.url, first, firstMove, second),
        act(b.url, second, secondMove, first),
      ])
      for (const { status } of answers) tally.set(status, (tally.get(status) ?? 0) + 1)
      const where = `round ${round + 1} (${firstMove} / ${secondMove}): ${JSON.stringify(answers)}`
      for (const answer of answers) {
        expect(answer.status, where).toBeLessThan(500)
        // 409: the rule; 403 or 401: the request came after the other had already removed it.
        expect([200, 401, 403, 409], where).toContain(answer.status)
        if (answer.status === 409)
          expect(answer.message, where).toBe(SELF_SERVICE_MESSAGES.lastAdmin)
      }
      // Exactly one of the two removals happened.
      expect(answers.filter((answer) => answer.status === 200).length, where).toBe(1)
      const [active] = await rows<{ n: number }>(
        "select count(*)::int as n from users where practice_id = $1 and access_rights = 'Admin' and deactivated_at is null",
        [first.practice_id],
      )
      expect(active?.n, where).toBe(1)
    }
    const statuses = Object.fromEntries([...tally].sort(([x], [y]) => x - y))
    // The retries would hide a deadlock from the answers; the servers' logs tell of each one.
    const retried = cluster.servers.flatMap((server) =>
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('met a conflicting one')),
    )
    console.log(
      `Admin deadlock loop: ${ROUNDS} rounds on two processes, statuses ${JSON.stringify(statuses)}, transactions run again after a conflict: ${retried.length}`,
    )
    expect([...tally.keys()].filter((status) => status >= 500)).toEqual([])
    // One lock order: the two never even met in a deadlock.
    expect(retried).toEqual([])
  })
})
