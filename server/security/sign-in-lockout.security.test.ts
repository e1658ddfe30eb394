import { desc, eq } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { type AppType, createApp, SERVER_BUSY_MESSAGE } from '#server/app.ts'
import { outbox } from '#server/db/schema.ts'
import { DEMO_ADMIN } from '#server/demo/seed.ts'
import { AUTH_LIMITS } from '#server/modules/auth/routes.ts'
import { OWNER_ALERT_AFTER_FAILURES } from '#server/modules/auth/service.ts'
import { createHashingGate } from '#server/security/passwords.ts'
import { userWithPassword, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

const T0 = new Date('2026-08-01T09:00:00Z')
const TOO_MANY = 'Too many attempts. Please wait a few minutes and try again.'

/**
 * Failed sign-ins cost the attacker, never the account's owner. The
 * app trusts `X-Forwarded-For` here, so each call names the address it comes from.
 */
describe.each(testBackends())(
  'sign-in without a lock an attacker can hand out on $name',
  (backend) => {
    const t = useTestApp(backend)
    let app: AppType
    let clock = T0

    beforeEach(() => {
      clock = new Date(T0.getTime() + Math.floor(Math.random() * 1000) * 24 * 3600_000)
      t.setNow(clock)
      // A fresh app per test: empty in-memory counters.
      app = t.makeApp({ trustProxy: true })
    })
    const advance = (ms: number) => {
      clock = new Date(clock.getTime() + ms)
      t.setNow(clock)
    }

    const signIn = async (from: string, identifier: string, password: string, on = app) => {
      const response = await on.request('/api/auth/local', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from },
        body: JSON.stringify({ identifier, password }),
      })
      const body = (await response.json()) as { error?: { message: string } }
      return { status: response.status, retryAfter: response.headers.get('Retry-After'), body }
    }

    async function newUser(password = 'Owner-Pass-123') {
      const { email } = await userWithPassword(t, 'owner', password, {
        first_name: 'Olga',
        last_name: 'Owner',
      })
      return { email, password }
    }

    it('lets the owner in from an address without failures, however many came from elsewhere', async () => {
      const owner = await newUser()
      const statuses: number[] = []
      for (let i = 0; i < 12; i++) {
        statuses.push((await signIn('203.0.113.7', owner.email, 'Wrong-Pass-1')).status)
      }
      // The attacker's own address is slowed down...
      expect(statuses).toContain(429)
      // ...while the owner, elsewhere, with the right password, gets straight in.
      const home = await signIn('198.51.100.20', owner.email, owner.password)
      expect(home.status).toBe(200)
    })

    it('slows further failures from a suspect address with doubling waits, said in Retry-After', async () => {
      const owner = await newUser()
      const attacker = '203.0.113.8'
      for (let i = 0; i < AUTH_LIMITS.signInFailuresPerAccount.max; i++) {
        expect((await signIn(attacker, owner.email, 'Wrong-Pass-1')).status).toBe(400)
      }
      const waits: string[] = []
      for (let round = 0; round < 3; round++) {
        const allowed = await signIn(attacker, owner.email, 'Wrong-Pass-1')
        expect(allowed.status).toBe(400)
        expect(allowed.body.error?.message).toBe('Invalid Email or Password')
        const slowed = await signIn(attacker, owner.email, 'Wrong-Pass-1')
        expect(slowed.status).toBe(429)
        expect(slowed.body.error?.message).toBe(TOO_MANY)
        waits.push(slowed.retryAfter ?? '')
        advance(Number(slowed.retryAfter) * 1000 + 1)
      }
      expect(waits).toEqual(['1', '2', '4'])
    })

    it('never counts a successful sign-in against an address; 30 accounts failing from it then answer 429', async () => {
      const clinic = '198.51.100.50'
      for (let i = 0; i < 40; i++) {
        const staff = await signIn(clinic, DEMO_ADMIN.email, DEMO_ADMIN.password)
        expect(staff.status, `sign-in ${i + 1}`).toBe(200)
      }
      for (let i = 0; i < AUTH_LIMITS.signInAccountsPerIp.max; i++) {
        expect((await signIn(clinic, `typo-${i}@example.com`, 'Wrong-Pass-1')).status).toBe(400)
      }
      const refused = await signIn(clinic, `typo-x@example.com`, 'Wrong-Pass-1')
      expect(refused.status).toBe(429)
      expect(Number(refused.retryAfter)).toBeGreaterThan(0)
      // The account that signed in from here is not held back.
      expect((await signIn(clinic, DEMO_ADMIN.email, DEMO_ADMIN.password)).status).toBe(200)
    })

    it("never holds back a colleague's right password behind one NAT: 30 failures of one account there", async () => {
      // A clinic signs in from one address; one person failing must not lock out others.
      const clinic = '198.51.100.60'
      const typist = await newUser()
      const colleague = await newUser('Colleague-Pass-123')
      let failures = 0
      let attempts = 0
      while (failures < 30) {
        attempts++
        const guess = await signIn(clinic, typist.email, 'Wrong-Pass-1')
        if (guess.status === 400) failures++
        else {
          // The typist's own account from this address waits, doubling: wait it out and go on.
          expect(guess.status).toBe(429)
          advance(Number(guess.retryAfter) * 1000 + 1)
        }
      }
      expect(attempts).toBeGreaterThan(30)
      // The colleague, who never signed in from here before, gets straight in...
      const straight = await signIn(clinic, colleague.email, colleague.password)
      expect(straight.status).toBe(200)
      expect(straight.retryAfter).toBeNull()
      // ...while the typist's account from this address is still slowed.
      expect((await signIn(clinic, typist.email, typist.password)).status).toBe(429)
    })

    it('refuses an address that sprays many accounts, but for accounts that signed in from it before', async () => {
      const office = '198.51.100.61'
      const regular = await newUser('Regular-Pass-123')
      const newcomer = await newUser('Newcomer-Pass-123')
      expect((await signIn(office, regular.email, regular.password)).status).toBe(200)
      // Each account counts once however often it fails: this one five times is one account.
      for (let i = 0; i < 5; i++) {
        expect((await signIn(office, 'spray-same@example.com', 'Wrong-Pass-1')).status).toBe(400)
      }
      for (let i = 1; i < AUTH_LIMITS.signInAccountsPerIp.max; i++) {
        expect((await signIn(office, `spray-${i}@example.com`, 'Summer2026!')).status).toBe(400)
      }
      // One account more than the limit: refused before any hashing, with Retry-After.
      const sprayed = await signIn(office, 'spray-more@example.com', 'Summer2026!')
      expect(sprayed.status).toBe(429)
      expect(sprayed.body.error?.message).toBe(TOO_MANY)
      expect(Number(sprayed.retryAfter)).toBeGreaterThan(0)
      // An account that never signed in from here waits for the window too, right password or not.
      expect((await signIn(office, newcomer.email, newcomer.password)).status).toBe(429)
      // One that signed in from here before is not held back.
      expect((await signIn(office, regular.email, regular.password)).status).toBe(200)
      // Elsewhere, the newcomer is not affected at all.
      expect((await signIn('198.51.100.62', newcomer.email, newcomer.password)).status).toBe(200)
      advance(AUTH_LIMITS.signInAccountsPerIp.windowMs + 1000)
      expect((await signIn(office, newcomer.email, newcomer.password)).status).toBe(200)
    })

    it(`e-mails the owner a reset link once, after ${OWNER_ALERT_AFTER_FAILURES} failures`, async () => {
      const owner = await newUser()
      // Every guess from another address, as a botnet would: none of them is slowed.
      for (let i = 0; i < OWNER_ALERT_AFTER_FAILURES + 3; i++) {
        expect((await signIn(`203.0.114.${i + 1}`, owner.email, 'Wrong-Pass-1')).status).toBe(400)
      }
      await t.deliver()
      const mails = await t.db
        .select()
        .from(outbox)
        .where(eq(outbox.to, owner.email))
        .orderBy(desc(outbox.id))
      expect(mails).toHaveLength(1)
      expect(mails[0]?.subject).toBe('Failed sign-ins to your Glow Rewards account')
      const link = new URL(mails[0]?.link ?? '')
      expect(`${link.origin}${link.pathname}`).toBe('http://localhost:3000/reset')
      const status = await app.request('/api/auth/reset-code-status', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code: link.searchParams.get('code') }),
      })
      expect(await status.json()).toEqual({ valid: true })
      expect(t.log.lines.join('\n')).toContain('the owner was e-mailed a reset link')
    })

    it('refuses suspect addresses without hashing once the global failure budget is spent', async () => {
      const owner = await newUser()
      for (let i = 0; i < AUTH_LIMITS.signInFailuresGlobal.max; i++) {
        const from = `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`
        expect((await signIn(from, `spray-${i}@example.com`, 'Wrong-Pass-1')).status).toBe(400)
      }
      const again = await signIn('10.1.0.1', `spray-again@example.com`, 'Wrong-Pass-1')
      expect(again.status).toBe(429)
      expect(again.retryAfter).not.toBeNull()
      // A real user from a clean address is not part of the flood.
      expect((await signIn('198.51.100.77', owner.email, owner.password)).status).toBe(200)
      advance(AUTH_LIMITS.signInFailuresGlobal.windowMs + 1000)
      expect((await signIn('10.1.0.1', `spray-later@example.com`, 'Wrong-Pass-1')).status).toBe(400)
    })

    it('answers 503 with Retry-After when password hashing is at capacity', async () => {
      const hashing = createHashingGate({
        concurrency: 1,
        trustedQueue: 0,
        queue: 0,
        suspectQueue: 0,
      })
      const busy = createApp({
        db: t.db,
        mail: { send: async () => {} },
        sms: { send: async () => {} },
        config: { ...t.config, trustProxy: true },
        now: () => clock,
        log: t.log,
        hashing,
      })
      let release = () => {}
      const held = hashing.run(() => new Promise<void>((resolve) => (release = resolve)))
      const refused = await busy.request('/api/auth/local', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.90' },
        body: JSON.stringify({ identifier: DEMO_ADMIN.email, password: DEMO_ADMIN.password }),
      })
      expect(refused.status).toBe(503)
      expect(refused.headers.get('Retry-After')).toBe('1')
      expect(await refused.json()).toMatchObject({
        error: { status: 503, message: SERVER_BUSY_MESSAGE },
      })
      release()
      await held
      expect(
        (await signIn('198.51.100.90', DEMO_ADMIN.email, DEMO_ADMIN.password, busy)).status,
      ).toBe(200)
    })
  },
)

describe('the hashing gate', () => {
  it('runs at most `concurrency` at once, serves trusted, then normal, then suspect work, refuses beyond its queues', async () => {
    const gate = createHashingGate({ concurrency: 1, trustedQueue: 1, queue: 1, suspectQueue: 1 })
    const order: string[] = []
    let release = () => {}
    const first = gate.run(() => new Promise<void>((resolve) => (release = resolve)))
    const suspect = gate.run(async () => void order.push('suspect'), 'suspect')
    const normal = gate.run(async () => void order.push('normal'))
    const trusted = gate.run(async () => void order.push('trusted'), 'trusted')
    expect(gate.load()).toEqual({ running: 1, waiting: 3 })
    await expect(gate.run(async () => {}, 'suspect')).rejects.toMatchObject({
      name: 'HashingBusyError',
      retryAfterSeconds: 1,
    })
    await expect(gate.run(async () => {})).rejects.toMatchObject({ name: 'HashingBusyError' })
    release()
    await Promise.all([first, suspect, normal, trusted])
    expect(order).toEqual(['trusted', 'normal', 'suspect'])
    expect(gate.load()).toEqual({ running: 0, waiting: 0 })
  })
})
