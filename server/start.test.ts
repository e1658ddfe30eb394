import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServerConfig } from './config.ts'
import { DEMO_ADMIN } from './db/seed.ts'
import { memoryLogger } from './lib/log.ts'
import { startServer } from './start.ts'

const base: ServerConfig = {
  port: 0,
  host: '127.0.0.1',
  dataDir: 'memory',
  publicUrl: 'http://localhost:3000',
  allowedOrigins: ['http://localhost:3000'],
  production: false,
  twilioConfigured: false,
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
    } finally {
      await server.close()
    }
    await expect(fetch(`http://127.0.0.1:${server.port}/api/health`)).rejects.toThrow()
  })

  it('keeps data and the JWT secret on disk across restarts, seeding only once', async () => {
    const dataDir = join(dir, 'data')
    const first = await startServer({ ...base, dataDir }, { log: memoryLogger() })
    await first.close()
    expect(first.seeded).toBe(true)
    expect(existsSync(join(dataDir, 'pglite'))).toBe(true)
    expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(true)
    const second = await startServer({ ...base, dataDir }, { log: memoryLogger() })
    try {
      expect(second.seeded).toBe(false)
      const plans = await fetch(`http://127.0.0.1:${second.port}/api/practice/plans`)
      expect(((await plans.json()) as { plans: { data: unknown[] } }).plans.data).toHaveLength(4)
    } finally {
      await second.close()
    }
  }, 60_000)

  it('rejects when the port is taken, and warns that SMTP is not wired', async () => {
    const log = memoryLogger()
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    try {
      await expect(
        startServer({ ...base, port, smtpUrl: 'smtp://mail.example.com' }, { log }),
      ).rejects.toThrow(/EADDRINUSE/)
      expect(log.lines.join('\n')).toMatch(/SMTP_URL is set, but SMTP delivery is not wired yet/)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  it('names the demo credentials the banner prints', () => {
    expect(DEMO_ADMIN).toMatchObject({ email: 'demo@example.com', password: 'DemoPass123' })
  })
})
