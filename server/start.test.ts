import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { OutboxMessage } from '#domain/practice-data.ts'
import { nextechConnections, nextechSyncRuns } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { HIDDEN_CODE } from '#server/messaging/sms.ts'
import { DEFAULT_MAIL_FROM } from '#server/messaging/smtp-mail.ts'
import { fileUrl } from '#server/modules/practice/upload-service.ts'
import { pgliteDump, readDbTemplates } from '#server/testing/db-templates.ts'
import {
  decodeHeader,
  parseMessage,
  partOf,
  startSmtpServer,
  startTwilioStub,
} from '#server/testing/provider-stubs.ts'
import { fixture } from '#tests/support/image-fixtures.ts'
import type { ServerConfig } from './config.ts'
import {
  outboundMessages,
  outbox as outboxTable,
  practices,
  testGatewayCustomers,
  testGatewaySubscriptions,
  uploads,
} from './db/schema.ts'
import { memoryLogger } from './lib/log.ts'
import { startServer } from './start.ts'

const base: ServerConfig = {
  port: 0,
  host: '127.0.0.1',
  dataDir: 'memory',
  publicUrl: 'http://localhost:3000',
  allowedOrigins: ['http://localhost:3000'],
  production: false,
  mailFrom: DEFAULT_MAIL_FROM,
}

const TWILIO = {
  accountSid: 'AC0123456789abcdef0123456789abcdef',
  authToken: 'twilio-auth-token-secret',
  from: '+15550100100',
}

/**
 * The run's migrated and seeded template (the demo practice without its year of history), for
 * the tests about what happens after the database is ready: they need not migrate and seed again.
 */
function seededDump(): Blob | undefined {
  const template = readDbTemplates()?.pglite
  return template && pgliteDump(template.seeded)
}

describe('startServer', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'glow-start-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('migrates, seeds, listens on a real port and closes cleanly (memory)', async () => {
    const server = await startServer(base, { log: memoryLogger() })
    try {
      expect(server.seeded).toBe(true)
      expect(server.url).toBe(`http://localhost:${server.port}`)
      const health = await fetch(`http://127.0.0.1:${server.port}/api/health`)
      expect(await health.json()).toEqual({ ok: true })
      const outbox = await fetch(`http://127.0.0.1:${server.port}/api/dev/outbox`)
      expect(outbox.status).toBe(200)
      // The demo practice is connected to the Nextech sandbox out of the box, and synced: the
      // sandbox's patients are the demo's own people, linked rather than added again.
      const run = await vi.waitFor(
        async () => {
          const [row] = await server.database.db.select().from(nextechSyncRuns)
          expect(row?.status).toBe('done')
          return row
        },
        { timeout: 20_000 },
      )
      expect(run?.counts).toMatchObject({ patients_linked: 3, patients_created: 0 })
      const [connection] = await server.database.db.select().from(nextechConnections)
      expect(connection).toMatchObject({ status: 'connected' })
    } finally {
      await server.close()
    }
    await expect(fetch(`http://127.0.0.1:${server.port}/api/health`)).rejects.toThrow()
  })

  it('keeps data and the JWT secret on disk across restarts, seeding only once', async () => {
    const dataDir = join(dir, 'data')
    const first = await startServer({ ...base, dataDir }, { log: memoryLogger() })
    // An upload as a server from before uploads moved into the database kept it: a row, and its file in DATA_DIR/uploads.
    const [practice] = await first.database.db.select({ id: practices.id }).from(practices)
    const [upload] = await first.database.db
      .insert(uploads)
      .values({
        practice_id: practice?.id ?? 0,
        name: 'logo.png',
        mime: 'image/png',
        size: 0,
        storage_key: 'kept-on-disk',
        purpose: 'logo',
      })
      .returning()
    mkdirSync(join(dataDir, 'uploads'))
    writeFileSync(join(dataDir, 'uploads', 'kept-on-disk'), fixture('tiny.png'))
    await first.close()
    expect(first.seeded).toBe(true)
    expect(existsSync(join(dataDir, 'pglite'))).toBe(true)
    expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(true)
    const log = memoryLogger()
    const second = await startServer({ ...base, dataDir }, { log })
    try {
      expect(second.seeded).toBe(false)
      // Moved into the database at start, and served from there.
      expect(log.lines).toContain(
        `info: Moved 1 uploaded image from ${join(dataDir, 'uploads')} into the database; the files stay there until you remove the folder, once a backup of the database holds them.`,
      )
      const logo = await fetch(
        `http://127.0.0.1:${second.port}${fileUrl(upload ?? { id: 0, storage_key: '' })}`,
      )
      expect(logo.status).toBe(200)
      expect(Buffer.from(await logo.arrayBuffer()).equals(Buffer.from(fixture('tiny.png')))).toBe(
        true,
      )
      const plans = await fetch(`http://127.0.0.1:${second.port}/api/practice/plans`)
      expect(((await plans.json()) as { plans: { data: unknown[] } }).plans.data).toHaveLength(4)
      // The demo practice's subscription lives on the test gateway's tables: still there.
      const signIn = await fetch(`http://127.0.0.1:${second.port}/api/auth/local`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password }),
      })
      const { jwt } = (await signIn.json()) as { jwt: string }
      const subscription = await fetch(
        `http://127.0.0.1:${second.port}/api/practice/subscription`,
        { headers: { Authorization: `Bearer ${jwt}` } },
      )
      expect(await subscription.json()).toMatchObject({
        status: 'active',
        plans: [{ id: 'plan_glow_monthly_lite' }],
        card: { brand: 'Visa', last4: '4242' },
        cancel_at_period_end: false,
      })
    } finally {
      await second.close()
    }
  })

  it('seeds no subscription on the test gateway when payments go to Stripe', async () => {
    const server = await startServer(
      { ...base, stripeSecretKey: 'sk_test_not_a_real_key' },
      { log: memoryLogger() },
    )
    try {
      expect(server.demo).toBe(true)
      const [demo] = await server.database.db
        .select({ subscription: practices.stripe_subscription_id })
        .from(practices)
      expect(demo).toEqual({ subscription: null })
      expect(await server.database.db.select().from(testGatewaySubscriptions)).toEqual([])
      expect(await server.database.db.select().from(testGatewayCustomers)).toEqual([])
    } finally {
      await server.close()
    }
  })

  it('rejects when the port is taken', async () => {
    const log = memoryLogger()
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    try {
      await expect(
        startServer({ ...base, port }, { log, pgliteDump: seededDump() }),
      ).rejects.toThrow(/EADDRINUSE/)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  describe('delivery providers', () => {
    const cleanups: (() => Promise<void>)[] = []
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
    })

    async function post(url: string, path: string, body: unknown) {
      return fetch(`${url}/api${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    }

    async function outbox(url: string): Promise<OutboxMessage[]> {
      const response = await fetch(`${url}/api/dev/outbox`)
      return ((await response.json()) as { messages: OutboxMessage[] }).messages
    }

    it('says which providers are active: the outbox when nothing is set', async () => {
      const log = memoryLogger()
      const server = await startServer(base, { log, pgliteDump: seededDump() })
      cleanups.push(server.close)
      expect(log.lines).toContain(
        'info: E-mail: the development outbox (GET /api/dev/outbox); set SMTP_URL to send real e-mail',
      )
      expect(log.lines).toContain(
        'info: SMS: the development outbox (GET /api/dev/outbox); set TWILIO_* to send real text messages',
      )
      expect(log.lines.join('\n')).not.toMatch(/not wired/)
    })

    it('in production without Twilio, keeps codes in the outbox table only as hashes', async () => {
      const log = memoryLogger()
      const server = await startServer(
        { ...base, production: true, allowTestPayments: true },
        { log, pgliteDump: seededDump() },
      )
      cleanups.push(server.close)
      expect(log.lines).toContain(
        'warn: SMS: the outbox table only (GET /api/dev/outbox is off in production), codes kept as hashes until they expire; set TWILIO_* to send real text messages',
      )
      const getCode = await post(server.url, '/auth/get-code', {
        email: 'jane@clinic.example',
        phone: '5552100198',
        countryCode: '+1',
      })
      expect(getCode.status).toBe(200)
      const recorded = () =>
        server.database.db.select().from(outboxTable).where(eq(outboxTable.to, '+15552100198'))
      await vi.waitFor(async () => expect(await recorded()).toHaveLength(1))
      const [row] = await recorded()
      expect(row?.text).toBe(
        `Your Glow Rewards confirmation code is ${HIDDEN_CODE}. It expires in 10 minutes.`,
      )
      expect(row?.code).toMatch(/^sha256:[0-9a-f]{64}$/)
    })

    it('sends e-mail over SMTP and codes through Twilio when configured, nothing to the outbox', async () => {
      const smtp = await startSmtpServer()
      cleanups.push(smtp.close)
      const twilio = await startTwilioStub()
      cleanups.push(twilio.close)
      const log = memoryLogger()
      const server = await startServer(
        {
          ...base,
          smtpUrl: `smtp://glow:smtp-password-secret@127.0.0.1:${smtp.port}`,
          mailFrom: 'Glow Rewards <hello@glow.example>',
          twilio: TWILIO,
        },
        { log, twilioBaseUrl: twilio.baseUrl, pgliteDump: seededDump() },
      )
      cleanups.push(server.close)
      const before = await outbox(server.url)

      expect(log.lines).toContain(
        `info: E-mail: SMTP via smtp://127.0.0.1:${smtp.port}, from Glow Rewards <hello@glow.example>`,
      )
      expect(log.lines).toContain('info: SMS: Twilio, from +15550100100')

      const forgot = await post(server.url, '/auth/forgot-password', {
        email: DEMO_ADMIN.email,
        url: 'http://localhost:3000/reset',
      })
      expect(forgot.status).toBe(200)
      // The worker sends it right after the answer, from the queue. (The demo history's points
      // reminder, queued by the daily points job at start, may go out over SMTP too: not ours.)
      const ours = () => smtp.received.filter((m) => m.to.includes(DEMO_ADMIN.email))
      await vi.waitFor(() => expect(ours()).toHaveLength(1))
      expect(smtp.logins[0]).toEqual({ username: 'glow', password: 'smtp-password-secret' })
      expect(ours()[0]?.to).toEqual([DEMO_ADMIN.email])
      const { headers, parts } = parseMessage(ours()[0]?.raw ?? '')
      expect(headers.from).toBe('Glow Rewards <hello@glow.example>')
      expect(decodeHeader(headers.subject ?? '')).toBe('Reset your Glow Rewards password')
      const text = partOf(parts, 'text/plain')?.body ?? ''
      const link = /http:\/\/localhost:3000\/reset\?code=[\w-]+/.exec(text)?.[0] ?? ''
      expect(link).not.toBe('')
      expect(partOf(parts, 'text/html')?.body).toContain(`<a href="${link}">`)

      const getCode = await post(server.url, '/auth/get-code', {
        email: 'jane@clinic.example',
        phone: '5552100199',
        countryCode: '+1',
      })
      expect(getCode.status).toBe(200)
      await vi.waitFor(() => expect(twilio.requests).toHaveLength(1))
      expect(twilio.requests[0]?.path).toBe(
        `/2010-04-01/Accounts/${TWILIO.accountSid}/Messages.json`,
      )
      expect(twilio.requests[0]?.form).toMatchObject({ To: '+15552100199', From: '+15550100100' })
      expect(twilio.requests[0]?.form.Body).toMatch(
        /^Your Glow Rewards confirmation code is \d{6}\. It expires in 10 minutes\.$/,
      )

      expect(await outbox(server.url)).toEqual(before)
      const logged = log.lines.join('\n')
      for (const secret of ['smtp-password-secret', TWILIO.authToken, link.split('=')[1] ?? '']) {
        expect(logged).not.toContain(secret)
      }
    })

    it('when the providers fail: forgot-password and get-code answer as usual, the messages stay queued for a retry', async () => {
      const closedSmtp = await startSmtpServer()
      await closedSmtp.close()
      const twilio = await startTwilioStub((response) => {
        response.writeHead(400, { 'Content-Type': 'application/json' })
        response.end(JSON.stringify({ code: 21614, message: 'Not a mobile number', status: 400 }))
      })
      cleanups.push(twilio.close)
      const log = memoryLogger()
      const server = await startServer(
        { ...base, smtpUrl: `smtp://127.0.0.1:${closedSmtp.port}`, twilio: TWILIO },
        { log, twilioBaseUrl: twilio.baseUrl, pgliteDump: seededDump() },
      )
      cleanups.push(server.close)

      const known = await post(server.url, '/auth/forgot-password', {
        email: DEMO_ADMIN.email,
        url: 'http://localhost:3000/reset',
      })
      const unknown = await post(server.url, '/auth/forgot-password', {
        email: 'nobody-here@example.com',
        url: 'http://localhost:3000/reset',
      })
      expect(known.status).toBe(200)
      expect(unknown.status).toBe(200)
      expect(await known.json()).toEqual(await unknown.json())
      const mailFailure = () =>
        log.lines.find((line) => line.includes('"Reset your Glow Rewards password" to d***'))
      await vi.waitFor(() => expect(mailFailure()).toBeDefined())
      expect(mailFailure()).toMatch(
        /^warn: E-mail "Reset your Glow Rewards password" to d\*\*\*@example\.com failed \(attempt 1\), retried later: E-mail "Reset your Glow Rewards password" could not be sent over smtp:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
      )
      expect(mailFailure()).not.toContain('code=')
      expect(mailFailure()).not.toContain(DEMO_ADMIN.email)

      const phone = { email: 'jane@clinic.example', phone: '5552100198', countryCode: '+1' }
      const queued = await post(server.url, '/auth/get-code', phone)
      expect(queued.status).toBe(200)
      await vi.waitFor(() =>
        expect(log.lines.join('\n')).toContain(
          'warn: SMS to ***0198 failed (attempt 1), retried later: SMS to ***0198 not sent: Twilio answered 400: Not a mobile number (Twilio error 21614)',
        ),
      )
      // Both wait in the queue for their next attempt; nothing was lost. (The demo history's
      // points reminder, queued at start, waits beside them: not ours.)
      const waiting = (await server.database.db.select().from(outboundMessages)).filter(
        (row) => row.channel === 'sms' || row.to === DEMO_ADMIN.email,
      )
      expect(waiting.map((row) => [row.channel, row.attempts, row.failed_at])).toEqual([
        ['email', 1, null],
        ['sms', 1, null],
      ])
    })
  })

  it('names the demo credentials the banner prints', () => {
    expect(DEMO_ADMIN).toMatchObject({ email: 'demo@example.com', password: 'DemoPass123' })
  })
})
