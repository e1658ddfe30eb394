import { eq } from 'drizzle-orm'
import type { Database } from '#server/db/client.ts'
import { practices } from '#server/db/schema.ts'
import type { WalletPracticeLookup } from '#server/static.ts'

/**
 * The practice a wallet page names (server/static.ts): its name for the page's title, the sign-in
 * and the installed app's manifest; null when no practice has that id.
 */
export function walletPracticeLookup(db: Database): WalletPracticeLookup {
  return async (practiceId) => {
    const [found] = await db
      .select({ name: practices.practice_name })
      .from(practices)
      .where(eq(practices.id, practiceId))
      .limit(1)
    return found ?? null
  }
}
