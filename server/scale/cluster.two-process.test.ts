import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { CARDS, PLAN } from '#server/testing/memberships.ts'
import { type Cluster, type ServerProcess, startCluster } from '#server/testing/server-processes.ts'

// Two real server processes on one PostgreSQL database: the shared secrets let a
// session signed by one be accepted by the other; membership renewals run on both at the same
// moment, and the desk's "Charge now" races them on the declined ones: every member is charged
// once for the cycle, every decline gets one notice. (One cluster for both: starting one costs
// more than either check.)
describe('two server processes on one PostgreSQL', () => {
  let cluster: Cluster
  let db: pg.Client
  const members = 40
  const failing = 8
  beforeAll(async () => {
    // The billing schedule off: the test runs the renewal day itself, on both at once.
    cluster = await startCluster({ label: 'smoke', env: { BILLING_RUN_MINUTES: '0' } })
    db = new pg.Client({ connectionString: cluster.databaseUrl })
    await db.connect()
  }, 400_000)
  afterAll(async () => {
    await db?.end()
    await cluster?.close()
  }, 60_000)

  async function signIn(server: ServerProcess): Promise<string> {
    const response = await fetch(`${server.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'demo@example.com', password: 'DemoPass123' }),
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { jwt: string }).jwt
  }

  const caller =
    (server: ServerProcess, token: string) =>
    async (path: string, body?: unknown, method = 'POST') => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }

  it('a session signed in on one is accepted by the other', async () => {
    const [a, b] = cluster.servers
    if (!a || !b) throw new Error('the cluster has fewer than two processes')
    const signIn = await fetch(`${a.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'demo@example.com', password: 'DemoPass123' }),
    })
    expect(signIn.status).toBe(200)
    const { jwt } = (await signIn.json()) as { jwt: string }
    const me = await fetch(`${b.url}/api/users-permissions/init`, {
      headers: { authorization: `Bearer ${jwt}` },
    })
    expect(me.status).toBe(200)
  })

  it('charges each member once for the cycle and sends one notice per decline', async () => {
    const [a, b] = cluster.servers
    if (!a || !b) throw new Error('the cluster has fewer than two processes')
    const callA = caller(a, await signIn(a))
    const callB = caller(b, await signIn(b))
    expect((await callA('/api/practice/payments/connect', {})).status).toBe(200)
    const plan = await callA('/api/membership-plans', PLAN)
    expect(plan.status).toBe(201)
    const practice = await db.query<{ id: number }>(
      `select practice_id as id from users where email = 'demo@example.com'`,
    )
    const patients = await db.query<{ id: number }>(
      `insert into patients (practice_id, first_name, last_name, email, unsubscribe_id)
       select $1, 'Member' || n, 'Billing', 'member-' || n || '@billing.example', md5(random()::text || n)
       from generate_series(1, $2::int) as n returning id`,
      [practice.rows[0]?.id, members],
    )
    const ids: number[] = []
    for (const { id } of patients.rows) {
      // Tokens live in the memory of the process that made them: enrol on the same one.
      const token = await callA('/api/payments/test-tokens', {
        number: CARDS.ok,
        exp_month: 12,
        exp_year: new Date().getUTCFullYear() + 5,
        cvc: '123',
      })
      const enrolled = await callA(`/api/patients/${id}/memberships`, {
        plan_id: plan.body.id,
        payment_method_token: token.body.id,
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Member' },
        idempotencyKey: `two-process-${id}`,
      })
      expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201)
      ids.push(enrolled.body.id as number)
    }
    const declining = ids.slice(0, failing)
    // Their saved cards now behave like 4000 0000 0000 0341: attached, declined when charged.
    await db.query(
      `update test_gateway_member_customers set charge_outcome = 'card_declined'
       where id in (select customer_id from memberships where id = any($1::int[]))`,
      [declining],
    )
    // The renewal day, for both processes at once (one shared clock).
    await db.query(
      `insert into billing_clock (id, offset_ms) values (1, $1)
       on conflict (id) do update set offset_ms = billing_clock.offset_ms + $1`,
      [31 * 86_400_000],
    )
    const runs = await Promise.all([
      callA('/api/dev/clock', { days: 0 }),
      callB('/api/dev/clock', { days: 0 }),
      // The desk's "Charge now" on the declined ones, from either process, racing the runs.
      ...declining.map((id, i) =>
        (i % 2 ? callA : callB)(`/api/memberships/${id}/retry-payment`, {}),
      ),
    ])
    expect(runs.slice(0, 2).map((r) => r.status)).toEqual([200, 200])
    // Whatever the race left due runs now.
    await Promise.all([callA('/api/dev/clock', { days: 0 }), callB('/api/dev/clock', { days: 0 })])

    const charged = await db.query<{ membership_id: number; n: number }>(
      `select (metadata->>'membership_id')::int as membership_id, count(*)::int as n
       from test_gateway_charges where kind = 'charge' and status = 'succeeded'
         and metadata->>'cycle' = '2' group by 1`,
    )
    const good = ids.slice(failing)
    expect(charged.rows.map((r) => r.membership_id).sort((x, y) => x - y)).toEqual(good)
    expect(charged.rows.every((r) => r.n === 1)).toBe(true)
    const statuses = await db.query<{
      id: number
      status: string
      cycle: number
      bank_cents: number
    }>(
      'select id, status, cycle, bank_cents from memberships where id = any($1::int[]) order by id',
      [ids],
    )
    for (const row of statuses.rows) {
      if (declining.includes(row.id))
        expect(row).toMatchObject({ status: 'past_due', cycle: 1, bank_cents: 5000 })
      else expect(row).toMatchObject({ status: 'active', cycle: 2, bank_cents: 10_000 })
    }
    // One notice per declined attempt, no more (queued, or sent into the outbox).
    const notices = await db.query<{ failures: number; notices: number }>(
      `select (select count(*)::int from membership_charges where status = 'failed') as failures,
              ((select count(*)::int from outbound_messages where subject like '%payment was declined')
               + (select count(*)::int from outbox where subject like '%payment was declined')) as notices`,
    )
    expect(notices.rows[0]?.failures).toBeGreaterThanOrEqual(failing)
    expect(notices.rows[0]?.notices).toBe(notices.rows[0]?.failures)
  }, 300_000)
})
