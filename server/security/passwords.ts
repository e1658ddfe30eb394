import { availableParallelism } from 'node:os'
import { hash, verify } from '@node-rs/argon2'

/**
 * argon2id with OWASP's parameters (19 MiB of memory, 2 iterations, 1 lane).
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

/** How much argon2 work may run or wait at once, in places (see {@link HASHING_LIMITS}). */
export type HashingLimits = {
  concurrency: number
  trustedQueue: number
  queue: number
  suspectQueue: number
  retryAfterSeconds: number
}

/** How much argon2 work may run or wait at once (a flood must not starve sign-ins). */
export const HASHING_LIMITS: HashingLimits = {
  /**
   * Hashes computed at once: one core less than the machine has (at least one), so the event loop
   * and the database keep a core while a flood is hashed.
   */
  concurrency: Math.max(1, availableParallelism() - 1),
  /** Waiting places for trusted work (sign-ins from an address where someone signed in lately). */
  trustedQueue: 32,
  /** Waiting places for ordinary work (a first sign-in from an address, a reset, a sign-up). */
  queue: 8,
  /** Waiting places for suspect work (sign-ins from an address with recent failures). */
  suspectQueue: 4,
  /** The Retry-After of a 503 when every place is taken. */
  retryAfterSeconds: 1,
}

/** Thrown when the hashing gate is full; the routes answer 503 with `Retry-After`. */
export class HashingBusyError extends Error {
  override readonly name = 'HashingBusyError'
  readonly retryAfterSeconds: number
  constructor(retryAfterSeconds: number) {
    super('Password hashing is at capacity')
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/**
 * Whose work it is: `trusted` (an address someone signed in from lately, without failures since)
 * goes first, then `normal`, then `suspect` (an address with recent failures).
 */
export type HashingPriority = 'trusted' | 'normal' | 'suspect'

const PRIORITIES: HashingPriority[] = ['trusted', 'normal', 'suspect']

/** Runs argon2 work with a bound on how much runs and waits (see {@link createHashingGate}). */
export type HashingGate = {
  run<T>(work: () => Promise<T>, priority?: HashingPriority): Promise<T>
  /**
   * Throws {@link HashingBusyError} now when work of `priority` would be refused, so a request
   * that will be turned away costs no database work first.
   */
  admit(priority?: HashingPriority): void
  /** Work running and waiting now (tests, the bench). */
  load(): { running: number; waiting: number }
}

/**
 * A semaphore for argon2: at most `concurrency` hashes at once, then a short queue per priority;
 * beyond that {@link HashingBusyError} at once, so a flood costs a 503 rather than seconds of
 * everyone's time. Waiting work starts in priority order (see {@link HashingPriority}).
 */
export function createHashingGate(limits: Partial<HashingLimits> = {}): HashingGate {
  const { concurrency, trustedQueue, queue, suspectQueue, retryAfterSeconds } = {
    ...HASHING_LIMITS,
    ...limits,
  }
  const places: Record<HashingPriority, number> = {
    trusted: trustedQueue,
    normal: queue,
    suspect: suspectQueue,
  }
  let running = 0
  const waiting: Record<HashingPriority, (() => void)[]> = { trusted: [], normal: [], suspect: [] }
  const next = () => {
    const line = PRIORITIES.map((priority) => waiting[priority]).find((l) => l.length > 0)
    const start = line?.shift()
    if (start) start()
    else running -= 1
  }
  const admit = (priority: HashingPriority) => {
    if (running >= concurrency && waiting[priority].length >= places[priority]) {
      throw new HashingBusyError(retryAfterSeconds)
    }
  }
  return {
    admit: (priority = 'normal') => admit(priority),
    async run(work, priority = 'normal') {
      admit(priority)
      if (running >= concurrency) {
        const line = waiting[priority]
        // The place is handed over by `next`, which keeps `running` as it is.
        await new Promise<void>((resolve) => line.push(resolve))
      } else {
        running += 1
      }
      try {
        return await work()
      } finally {
        next()
      }
    },
    load: () => ({
      running,
      waiting: waiting.trusted.length + waiting.normal.length + waiting.suspect.length,
    }),
  }
}

/** The gate every request's hashing goes through, shared by the whole process. */
export const passwordHashing: HashingGate = createHashingGate()
