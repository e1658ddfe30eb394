import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Cluster, startCluster } from '#server/testing/server-processes.ts'

// Two real server processes on one PostgreSQL database: the shared secrets let a
// session signed by one be accepted by the other.
describe('two server processes on one PostgreSQL', () => {
  let cluster: Cluster
  beforeAll(async () => {
    cluster = await startCluster({ label: 'smoke' })
  }, 400_000)
  afterAll(async () => {
    await cluster?.close()
  }, 60_000)

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
})
