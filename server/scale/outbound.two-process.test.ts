import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { OUTBOUND_RULES } from '#server/messaging/outbound.ts'
import { decodeHeader, parseMessage, startSmtpServer } from '#server/testing/provider-stubs.ts'
import { type Cluster, type ServerProcess, startCluster } from '#server/testing/server-processes.ts'
import { type Deferred, deferred } from '#tests/support/deferred.ts'

// The durable outbound queue on two real server processes sharing one PostgreSQL: both
// run the worker and the daily points job, both send through one slow mail server, and each
// patient gets each message once; a process killed mid-send holds only the message in flight.

/** One message as the mail server took it: after the final dot, before its 250 answer. */
type Delivery = {
  to: string
  messageId: string
  subject: string
  /** The EHLO name of the process that sent it (`process-0`, `process-1`). */
  sender: string
}

/**
 * The mail server both processes use: a real SMTP implementation (smtp-server: 220 greeting,
 * EHLO, MAIL FROM, RCPT TO, DATA, 250 after the dot, QUIT) on a free port of the loopback, which
 * answers each message `delayMs` late. {@link holdNext} makes one session of a given sender very
 * slow: MAIL FROM and RCPT TO answered `stepMs` late each (under the client's idle limit, so it
 * keeps waiting), and the 250 after its dot only when the test releases it. A message counts as
 * delivered when its dot arrives, as with a real server that keeps what it received even when the
 * client disappears before reading the 250.
 */
async function startSlowMailServer(delayMs: number, stepMs: number) {
  const deliveries: Delivery[] = []
  let armed: { sender: string; release: Deferred<void> } | undefined
  let heldSession: string | undefined
  let held: Delivery | undefined
  const slow = (sessionId: string, callback: () => void) => {
    if (sessionId === heldSession) setTimeout(callback, stepMs)
    else callback()
  }
  const server = await startSmtpServer({
    onMailFrom(_address, session, callback) {
      if (armed && !heldSession && session.hostNameAppearsAs === armed.sender) {
        heldSession = session.id
      }
      slow(session.id, () => callback())
    },
    onRcptTo(_address, session, callback) {
      slow(session.id, () => callback())
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const { headers } = parseMessage(Buffer.concat(chunks).toString('utf8'))
        const delivery: Delivery = {
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address).join(','),
          messageId: headers['message-id'] ?? '',
          subject: decodeHeader(headers.subject ?? ''),
          sender: session.hostNameAppearsAs,
        }
        deliveries.push(delivery)
        const answer = () => setTimeout(() => callback(), delayMs)
        if (session.id === heldSession && armed) {
          held = delivery
          void armed.release.promise.then(answer)
        } else {
          answer()
        }
      })
    },
  })
  return {
    port: server.port,
    deliveries,
    /** Makes the next session of `sender` the held one; its 250 waits for `release`. */
    holdNext(sender: string, release: Deferred<void>) {
      armed = { sender, release }
      heldSession = undefined
      held = undefined
    },
    /** The held session's message, once its dot arrived. */
    held: () => held,
    close: server.close,
  }
}

/** Recipient → the copies that arrived, of the deliveries `pick` keeps. */
function copiesByRecipient(
  deliveries: Delivery[],
  pick: (delivery: Delivery) => boolean,
): Map<string, Delivery[]> {
  const copies = new Map<string, Delivery[]>()
  for (const delivery of deliveries) {
    if (!pick(delivery)) continue
    copies.set(delivery.to, [...(copies.get(delivery.to) ?? []), delivery])
  }
  return copies
}

describe('the outbound queue on two server processes sharing one PostgreSQL', () => {
  let cluster: Cluster
  let mailServer: Awaited<ReturnType<typeof startSlowMailServer>>
  let db: pg.Client
  let practiceId: number

  beforeAll(async () => {
    // A slow mail server: every message waits 150 ms for its answer; a held one 13 s at each of
    // MAIL FROM and RCPT TO (under the client's 20 s idle limit), then as long as the test wants.
    mailServer = await startSlowMailServer(150, 13_000)
    cluster = await startCluster({
      label: 'outbound',
      // The same server for both; each process greets with its own name (nodemailer's `name`
      // option, passed through the URL) so the test can tell who sent what.
      envOf: (index) => ({
        SMTP_URL: `smtp://127.0.0.1:${mailServer.port}/?name=process-${index}`,
      }),
    })
    db = new pg.Client({ connectionString: cluster.databaseUrl })
    await db.connect()
    const practice = await db.query<{ id: number }>(
      `select practice_id as id from users where email = 'demo@example.com'`,
    )
    practiceId = practice.rows[0]?.id ?? 0
  }, 400_000)
  afterAll(async () => {
    await db?.end()
    await cluster?.close()
    await mailServer?.close()
  }, 60_000)

  /** `count` subscribed patients of the demo practice whose e-mails end in `@domain`. */
  async function addPatients(
    domain: string,
    count: number,
    { points = 0, from = 1 }: { points?: number; from?: number } = {},
  ): Promise<number[]> {
    const result = await db.query<{ id: number }>(
      `insert into patients (practice_id, first_name, last_name, email, unsubscribe_id, points)
       select $1, 'Patient' || n, 'Scale', 'patient-' || n || '@' || $2, md5(random()::text || n), $3
       from generate_series($5::int, $5::int + $4::int - 1) as n returning id`,
      [practiceId, domain, points, count, from],
    )
    return result.rows.map((row) => row.id)
  }

  async function signIn(server: ServerProcess): Promise<string> {
    const response = await fetch(`${server.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'demo@example.com', password: 'DemoPass123' }),
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { jwt: string }).jwt
  }

  /** "Send to patients" of a new live offer through `server`; answers how many it queued. */
  async function sendOffer(server: ServerProcess, title: string): Promise<number> {
    const token = await signIn(server)
    const call = async (path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      expect(response.status, `${path}: ${await response.clone().text()}`).toBeLessThan(300)
      return (await response.json()) as { id: number; queued: number }
    }
    const { id } = await call('/api/promotions', {
      title,
      description: 'A glow for the season.',
      bonus_points: 10,
      ends_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    })
    await call(`/api/promotions/${id}/publish`)
    return (await call(`/api/promotions/${id}/send`)).queued
  }

  /** Rows of the queue still waiting whose recipient or subject ends in `ending`. */
  async function waiting(ending: string) {
    const result = await db.query<{
      to: string
      attempts: number
      last_error: string | null
      claim_token: string | null
      claimed_at: Date | null
      next_attempt_at: Date
      held_ms: number | null
    }>(
      `select "to", attempts, last_error, claim_token, claimed_at, next_attempt_at,
              (extract(epoch from now() - claimed_at) * 1000)::int as held_ms
       from outbound_messages where "to" like '%' || $1 or subject like '%' || $1`,
      [ending],
    )
    return result.rows
  }

  const wide = { timeout: 240_000, interval: 250 }

  /** How many runs of the points job `server` logged (each start runs it once). */
  const runs = (server: ServerProcess) => server.output().match(/Points job: /g)?.length ?? 0

  it('sends a promotion through a slow mail server exactly once per patient, from both processes', async () => {
    const [a, b] = cluster.servers
    if (!a || !b) throw new Error('two processes expected')
    const title = `Slow server week ${randomBytes(3).toString('hex')}`
    await addPatients(`slow-${randomBytes(3).toString('hex')}.example`, 40)
    const ours = (delivery: Delivery) => delivery.subject.endsWith(title)

    // The demo practice's own subscribed patients are sent it too: the answer counts them all.
    const queued = await sendOffer(a, title)
    expect(queued).toBeGreaterThanOrEqual(40)

    await vi.waitFor(async () => {
      expect(copiesByRecipient(mailServer.deliveries, ours).size).toBe(queued)
      expect(await waiting(title)).toEqual([])
    }, wide)
    const copies = copiesByRecipient(mailServer.deliveries, ours)
    const all = [...copies.values()].flat()
    const duplicates = all.length - copies.size
    const by = (sender: string) => all.filter((delivery) => delivery.sender === sender).length
    console.log(
      `slow SMTP, two processes: queued ${queued}, delivered ${all.length}, duplicates ${duplicates}; ` +
        `by process-0 ${by('process-0')}, by process-1 ${by('process-1')}`,
    )
    expect(duplicates).toBe(0)
    expect(new Set(all.map((delivery) => delivery.messageId)).size).toBe(queued)
    // Both workers took part: the one that queued them and the one that polls.
    expect(by('process-0')).toBeGreaterThan(0)
    expect(by('process-1')).toBeGreaterThan(0)
  }, 300_000)

  it('a process killed mid-send holds only its message in flight, which the other sends again with the same Message-ID', async () => {
    const [a, b] = cluster.servers
    if (!a || !b) throw new Error('two processes expected')
    const title = `Crash week ${randomBytes(3).toString('hex')}`
    await addPatients(`kill-${randomBytes(3).toString('hex')}.example`, 20)
    const ours = (delivery: Delivery) => delivery.subject.endsWith(title)
    // Process-0's next message is slow at every step and never answered while it lives.
    const release = deferred<void>()
    mailServer.holdNext('process-0', release)

    const queued = await sendOffer(a, title)
    expect(queued).toBeGreaterThanOrEqual(20)

    // Process-0 waits on the mail server for longer than a lease and a poll of the other: it
    // renews its lease, so process-1 leaves that message alone and sends every other one.
    let heldRow: Awaited<ReturnType<typeof waiting>>[number] | undefined
    const tokens = new Set<string>()
    await vi.waitFor(async () => {
      const held = mailServer.held()
      expect(held).toBeDefined()
      const rows = await waiting(title)
      for (const row of rows)
        if (row.to === held?.to && row.claim_token) tokens.add(row.claim_token)
      expect(rows.map((row) => row.to)).toEqual([held?.to])
      heldRow = rows[0]
      expect(heldRow?.held_ms).toBeGreaterThan(OUTBOUND_RULES.leaseMs + OUTBOUND_RULES.pollMs)
    }, wide)
    const held = mailServer.held()
    const claimedAt = heldRow?.claimed_at?.getTime() ?? 0
    expect(heldRow?.next_attempt_at.getTime()).toBeGreaterThan(claimedAt + OUTBOUND_RULES.leaseMs)
    const before = copiesByRecipient(mailServer.deliveries, ours)
    expect(before.size).toBe(queued)
    expect([...before.values()].every((list) => list.length === 1)).toBe(true)
    // Process-0 is still waiting for the 250 (the server's steps stay under the client's idle
    // limit of 20 s): no attempt ended, the first claim still holds the row.
    expect(heldRow).toMatchObject({ attempts: 0, last_error: null })
    expect(tokens.size).toBe(1)

    // kill -9: no code runs, the claim stays until its lease runs out; then process-1 sends it.
    const killedAt = Date.now()
    await a.kill()
    release.resolve()
    await vi.waitFor(async () => {
      expect(copiesByRecipient(mailServer.deliveries, ours).get(held?.to ?? '')).toHaveLength(2)
      expect(await waiting(title)).toEqual([])
    }, wide)
    const retriedAfterMs = Date.now() - killedAt

    const copies = copiesByRecipient(mailServer.deliveries, ours)
    const all = [...copies.values()].flat()
    const twice = [...copies.entries()].filter(([, list]) => list.length > 1)
    const [first, second] = twice[0]?.[1] ?? []
    console.log(
      `kill -9 mid-send: queued ${queued}, delivered ${all.length}, duplicates ${all.length - copies.size} ` +
        `(the message in flight, same Message-ID both times: ${first?.messageId === second?.messageId}); ` +
        `the other ${queued - 1} were sent by process-1 while process-0 held it for ${Math.round((heldRow?.held_ms ?? 0) / 1000)} s; ` +
        `sent again ${Math.round(retriedAfterMs / 1000)} s after the kill (lease ${OUTBOUND_RULES.leaseMs / 1000} s, poll ${OUTBOUND_RULES.pollMs / 1000} s)`,
    )
    expect(copies.size).toBe(queued)
    expect(twice.map(([to]) => to)).toEqual([held?.to])
    expect(first?.sender).toBe('process-0')
    expect(second?.sender).toBe('process-1')
    expect(second?.messageId).toBe(first?.messageId)
    expect(first?.messageId).toMatch(/^<[0-9a-f-]{36}@127\.0\.0\.1>$/)

    // Back to two processes; the points job its start runs has ended before the next test.
    const runsBeforeRestart = runs(a)
    await a.restart()
    await vi.waitFor(() => expect(runs(a)).toBeGreaterThan(runsBeforeRestart), wide)
  }, 400_000)

  it('runs the points job on both processes at once: each expiry posted once, each reminder sent once', async () => {
    const [a, b] = cluster.servers
    if (!a || !b) throw new Error('two processes expected')
    const domain = `expiry-${randomBytes(3).toString('hex')}.example`
    const ours = (delivery: Delivery) => delivery.to.endsWith(`@${domain}`)
    const lapsed = await addPatients(domain, 12, { points: 100 })
    const lapsing = await addPatients(domain, 8, { points: 100, from: 13 })
    const day = 86_400_000
    // A lot of 100 points each: lapsed yesterday, or lapsing in three days (the 7-day reminder).
    await db.query(
      `insert into ledger_entries (practice_id, patient_id, kind, points, source_type, balance_after, expires_at)
       select $1, id, 'earn', 100, 'manual', 100, case when id = any($2::int[]) then $3::timestamptz else $4::timestamptz end
       from patients where id = any($5::int[])`,
      [
        practiceId,
        lapsed,
        new Date(Date.now() - day),
        new Date(Date.now() + 3 * day),
        [...lapsed, ...lapsing],
      ],
    )
    const runsBefore = [runs(a), runs(b)]

    // Both start at once, and each runs the job as it starts.
    await Promise.all([a.restart(), b.restart()])
    await vi.waitFor(() => {
      expect(runs(a)).toBeGreaterThan(runsBefore[0] ?? 0)
      expect(runs(b)).toBeGreaterThan(runsBefore[1] ?? 0)
    }, wide)
    const expiries = await db.query<{ patient_id: number; count: number }>(
      `select patient_id, count(*)::int as count from ledger_entries
       where kind = 'expire' and patient_id = any($1::int[]) group by patient_id`,
      [[...lapsed, ...lapsing]],
    )
    const balances = await db.query<{ points: number }>(
      'select points from patients where id = any($1::int[])',
      [lapsed],
    )
    await vi.waitFor(async () => {
      expect(copiesByRecipient(mailServer.deliveries, ours).size).toBe(lapsing.length)
      expect(await waiting(domain)).toEqual([])
    }, wide)
    const reminders = copiesByRecipient(mailServer.deliveries, ours)
    const sent = [...reminders.values()].flat()
    // The runs since the restart, of each process.
    const lines = [a, b].flatMap((server, index) =>
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('Points job: '))
        .slice(runsBefore[index] ?? 0)
        .map((line) => `process-${index}: ${line}`),
    )
    console.log(
      `points job on both processes: ${lapsed.length} lapsed lots, expire entries ${expiries.rows.reduce((sum, row) => sum + row.count, 0)}; ` +
        `reminders queued ${lapsing.length}, delivered ${sent.length}, duplicates ${sent.length - reminders.size}; runs: ${lines.map((line) => line.replace(/: .*?(Points job)/, ': $1')).join(' | ')}`,
    )
    expect(expiries.rows.map((row) => row.count)).toEqual(lapsed.map(() => 1))
    expect(expiries.rows.map((row) => row.patient_id).sort()).toEqual([...lapsed].sort())
    expect(balances.rows.every((row) => row.points === 0)).toBe(true)
    expect(sent).toHaveLength(lapsing.length)
    expect([...reminders.keys()].sort()).toEqual(
      lapsing.map((_, index) => `patient-${lapsed.length + index + 1}@${domain}`).sort(),
    )
  }, 400_000)
})
