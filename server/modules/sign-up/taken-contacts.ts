import type { Database } from '#server/db/client.ts'
import { users } from '#server/db/schema.ts'
import { phoneDigits } from '#server/messaging/verification.ts'

/** Every user's e-mail (lower-cased) and phone (digits only), as the availability check reads them. */
export type TakenContacts = { emails: ReadonlySet<string>; phones: ReadonlySet<string> }

/** Options of {@link createTakenContacts}. */
export type TakenContactsOptions = {
  /** How long a snapshot answers before the next request reads the users again (default 2 s). */
  maxAgeMs?: number
  /** The clock, in ms (the app's clock, so tests control expiry). */
  now: () => number
}

/**
 * The e-mails and phones in use, read from `users` in one query and kept for `maxAgeMs`, so that
 * `POST /auth/check-email` (asked on every step-1 Continue of the wizard, and a target for
 * enumeration at 60 a minute per address) costs no query of its own. Concurrent requests share one
 * read; an expired snapshot is read again before answering, so an answer is never older than
 * `maxAgeMs`. This instance calls {@link invalidate} after creating a user; another instance's new
 * users show within `maxAgeMs`. The check is advice for the wizard: registration itself refuses a
 * taken e-mail (409), whatever this said.
 */
export function createTakenContacts(db: Database, { maxAgeMs = 2000, now }: TakenContactsOptions) {
  let snapshot: { contacts: TakenContacts; readAt: number } | undefined
  let reading: Promise<TakenContacts> | undefined
  // Bumped by invalidate(): a read that started before it must not be kept as fresh.
  let generation = 0

  async function read(): Promise<TakenContacts> {
    const started = generation
    const readAt = now()
    const rows = await db.select({ email: users.email, phone: users.cell_phone }).from(users)
    const contacts: TakenContacts = {
      emails: new Set(rows.map((row) => row.email.trim().toLowerCase())),
      phones: new Set(rows.map((row) => phoneDigits(row.phone ?? ''))),
    }
    if (started === generation) snapshot = { contacts, readAt }
    return contacts
  }

  return {
    /** The current snapshot, read first when there is none or it is older than `maxAgeMs`. */
    async get(): Promise<TakenContacts> {
      if (snapshot && now() - snapshot.readAt < maxAgeMs) return snapshot.contacts
      if (!reading) {
        const current = read().finally(() => {
          if (reading === current) reading = undefined
        })
        reading = current
      }
      return reading
    },
    /** Forgets the snapshot, and any read under way (after this instance created a user). */
    invalidate(): void {
      generation += 1
      snapshot = undefined
      reading = undefined
    },
  }
}

/** The index {@link createTakenContacts} makes. */
export type TakenContactsIndex = ReturnType<typeof createTakenContacts>
