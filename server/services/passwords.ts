import { hash, verify } from '@node-rs/argon2'

/**
 * argon2id with OWASP's parameters (19 MiB of memory, 2 iterations, 1 lane; DESIGN.md section 8).
 * `2` is `Algorithm.Argon2id`, written as its value because the binding's enum is a `const enum`.
 */
export const ARGON2_OPTIONS = {
  algorithm: 2,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const

/** Hashes a password into a self-describing PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS)
}

/**
 * True when `password` matches `passwordHash`. A malformed hash answers false instead of
 * throwing, so a damaged row can never turn a sign-in into a 500.
 */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}
