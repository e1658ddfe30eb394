import { and, eq } from 'drizzle-orm'
import { SESSION_USER_COLUMNS } from '#server/auth/session-answer.ts'
import type { Database } from '#server/db/client.ts'
import { payments, practices, users } from '#server/db/schema.ts'

/** The account of `email` (lower case) with its password hash, or undefined. */
export async function accountOf(db: Database, email: string) {
  const [row] = await db
    .select({ ...SESSION_USER_COLUMNS, password_hash: users.password_hash })
    .from(users)
    .where(eq(users.email, email))
    .limit(1)
  return row
}

export type AccountRow = NonNullable<Awaited<ReturnType<typeof accountOf>>>

/** The payment made with card `token`: its e-mail and customer id, or undefined. */
export async function paymentOfToken(db: Database, token: string) {
  const [row] = await db
    .select({ email: payments.email, customer_id: payments.customer_id })
    .from(payments)
    .where(eq(payments.token, token))
    .limit(1)
  return row
}

/** Whether customer `customerId` paid with `email` as its e-mail. */
export async function hasPaid(db: Database, customerId: string, email: string) {
  const [payment] = await db
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.customer_id, customerId), eq(payments.email, email)))
    .limit(1)
  return payment !== undefined
}

/** The payment customer of practice `practiceId`, or null. */
export async function customerOfPractice(db: Database, practiceId: number) {
  const [practice] = await db
    .select({ stripe_customer_id: practices.stripe_customer_id })
    .from(practices)
    .where(eq(practices.id, practiceId))
    .limit(1)
  return practice?.stripe_customer_id ?? null
}
