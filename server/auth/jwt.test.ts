import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { users } from '#server/db/schema.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends, mintToken, TEST_JWT_SECRET } from '#server/testing/test-app.ts'
import {
  REMEMBER_TTL_SECONDS,
  resolveJwtSecret,
  SESSION_TTL_SECONDS,
  signSession,
  verifySession,
} from './jwt.ts'

const SECRET = 'a-secret-of-at-least-thirty-two-characters!'
const NOW = new Date('2026-03-01T12:00:00Z')
const HOUR = 60 * 60 * 1000

describe('session tokens', () => {
  it('round-trips the user and practice, valid for 8 hours', async () => {
    const token = await signSession({ userId: 7, practiceId: 3 }, { secret: SECRET, now: NOW })
    const claims = await verifySession(token, SECRET, NOW)
    expect(claims).toMatchObject({ userId: 7, practiceId: 3, issuedAt: NOW })
    expect(claims.expiresAt.getTime() - NOW.getTime()).toBe(SESSION_TTL_SECONDS * 1000)
    await expect(
      verifySession(token, SECRET, new Date(NOW.getTime() + 8 * HOUR - 1000)),
    ).resolves.toBeTruthy()
    await expect(
      verifySession(token, SECRET, new Date(NOW.getTime() + 8 * HOUR + 1000)),
    ).rejects.toThrow()
  })

  it('lasts 30 days with Remember me', async () => {
    const token = await signSession(
      { userId: 7, practiceId: 3 },
      { secret: SECRET, now: NOW, remember: true },
    )
    const claims = await verifySession(token, SECRET, new Date(NOW.getTime() + 29 * 24 * HOUR))
    expect(claims.expiresAt.getTime() - NOW.getTime()).toBe(REMEMBER_TTL_SECONDS * 1000)
    await expect(
      verifySession(token, SECRET, new Date(NOW.getTime() + 31 * 24 * HOUR)),
    ).rejects.toThrow()
  })

  it('refuses another secret, a changed payload and the none algorithm', async () => {
    const token = await signSession({ userId: 7, practiceId: 3 }, { secret: SECRET, now: NOW })
    await expect(verifySession(token, `${SECRET}x`, NOW)).rejects.toThrow()
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '1' })).toString('base64url')
    await expect(verifySession(`${header}.${forged}.${signature}`, SECRET, NOW)).rejects.toThrow()
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')
    await expect(verifySession(`${none}.${payload}.`, SECRET, NOW)).rejects.toThrow()
  })
})

describe('the signing secret', () => {
  it('prefers JWT_SECRET, else generates one once and keeps it in the data folder', () => {
    expect(resolveJwtSecret({ jwtSecret: SECRET, dataDir: '/nonexistent' })).toBe(SECRET)
    const dir = mkdtempSync(join(tmpdir(), 'glow-jwt-'))
    try {
      const dataDir = join(dir, 'nested', 'data')
      const first = resolveJwtSecret({ dataDir })
      expect(first.length).toBeGreaterThanOrEqual(32)
      expect(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim()).toBe(first)
      expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o077).toBe(0)
      expect(resolveJwtSecret({ dataDir })).toBe(first)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('is random per process in memory mode', () => {
    expect(resolveJwtSecret({ dataDir: 'memory' })).not.toBe(
      resolveJwtSecret({ dataDir: 'memory' }),
    )
  })
})

describe.each(httpBackends())('requireAuth on $name', (backend) => {
  const t = useTestApp(backend)

  async function expect401(response: Response) {
    expect(response.status).toBe(401)
    const body = (await response.json()) as { error: { message: string } }
    expect(body).toMatchObject({ error: { status: 401, name: 'UnauthorizedError' } })
    expect(body.error.message.length).toBeGreaterThan(0)
  }

  it('lets a valid token through', async () => {
    const response = await t.request('/api/users', { token: t.demo.adminToken })
    expect(response.status).toBe(200)
  })

  it('answers 401 JSON without a token or with a malformed header', async () => {
    await expect401(await t.request('/api/users'))
    await expect401(
      await t.request('/api/users', { headers: { Authorization: `Basic ${t.demo.adminToken}` } }),
    )
    await expect401(await t.request('/api/users', { token: 'not-a-jwt' }))
  })

  it('answers 401 for a tampered, foreign-secret or expired token', async () => {
    const [h, p, s] = t.demo.adminToken.split('.') as [string, string, string]
    const flipped = `${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`
    await expect401(await t.request('/api/users', { token: `${h}.${p}.${flipped}` }))
    const foreign = await mintToken(t.demo.admin, { secret: `${TEST_JWT_SECRET}-other` })
    await expect401(await t.request('/api/users', { token: foreign }))
    const old = await mintToken(t.demo.admin, { now: new Date(Date.now() - 9 * HOUR) })
    await expect401(await t.request('/api/users', { token: old }))
  })

  it('answers 401 for a user that does not exist or a practice that does not match', async () => {
    await expect401(
      await t.request('/api/users', { token: await mintToken({ id: 999_999, practice_id: 1 }) }),
    )
    const wrongPractice = await mintToken({ id: t.demo.admin.id, practice_id: 999_999 })
    await expect401(await t.request('/api/users', { token: wrongPractice }))
  })

  it('answers 401 for tokens issued before tokens_valid_after, not for newer ones', async () => {
    const before = await mintToken(t.demo.staff, { now: new Date(Date.now() - HOUR) })
    expect((await t.request('/api/users', { token: before })).status).toBe(200)
    await t.db
      .update(users)
      .set({ tokens_valid_after: new Date(Date.now() - 60_000) })
      .where(eq(users.id, t.demo.staff.id))
    await expect401(await t.request('/api/users', { token: before }))
    const after = await mintToken(t.demo.staff)
    expect((await t.request('/api/users', { token: after })).status).toBe(200)
  })
})
