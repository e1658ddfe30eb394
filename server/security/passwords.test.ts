import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from './passwords.ts'

describe('passwords', () => {
  it('hashes with argon2id and the OWASP parameters, salted', async () => {
    const first = await hashPassword('DemoPass123')
    const second = await hashPassword('DemoPass123')
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(first).not.toBe(second)
    expect(first).not.toContain('DemoPass123')
  })

  it('verifies the right password only, and answers false for a damaged hash', async () => {
    const hash = await hashPassword('DemoPass123')
    expect(await verifyPassword(hash, 'DemoPass123')).toBe(true)
    expect(await verifyPassword(hash, 'demopass123')).toBe(false)
    expect(await verifyPassword('not-a-hash', 'DemoPass123')).toBe(false)
  })
})
