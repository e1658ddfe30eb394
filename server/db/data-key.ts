import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A JSON value sealed with AES-256-GCM: what the database keeps instead of the value. */
export type SealedJson = {
  v: 1
  alg: 'A256GCM'
  /** Base64 of the 12-byte nonce, the 16-byte authentication tag and the ciphertext. */
  iv: string
  tag: string
  data: string
}

/** A DATA_ENCRYPTION_KEY value: 64 hexadecimal digits (32 bytes). */
export const DATA_KEY_PATTERN = /^[0-9a-fA-F]{64}$/

/**
 * The key that seals secrets at rest (the practices' Nextech credentials): DATA_ENCRYPTION_KEY
 * when given; otherwise one generated once and kept in `<dataDir>/data-key` (mode 600), as the
 * JWT secret is; in memory mode, a new one per process. Losing it loses the sealed values, so it
 * belongs in the backup plan (README).
 */
export function resolveDataKey({
  dataKey,
  dataDir,
}: {
  dataKey?: string | undefined
  dataDir: string
}): Buffer {
  if (dataKey) return Buffer.from(dataKey, 'hex')
  if (dataDir === 'memory') return randomBytes(32)
  const file = join(dataDir, 'data-key')
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim()
    if (DATA_KEY_PATTERN.test(stored)) return Buffer.from(stored, 'hex')
  }
  const key = randomBytes(32)
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600 })
  return key
}

/** Seals `value` (any JSON) with `key`; each call uses a fresh nonce. */
export function sealJson(value: unknown, key: Buffer): SealedJson {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()])
  return {
    v: 1,
    alg: 'A256GCM',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  }
}

/** Opens a {@link sealJson} value; throws when the key is wrong or the value was changed. */
export function openJson<T>(sealed: SealedJson, key: Buffer): T {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'))
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'))
  const text = Buffer.concat([
    decipher.update(Buffer.from(sealed.data, 'base64')),
    decipher.final(),
  ]).toString('utf8')
  return JSON.parse(text) as T
}
