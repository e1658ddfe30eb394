/**
 * The ledger module's reusable reads and writes outside the ledger itself (service.ts): the
 * programme rules on the practice row, a patient's balance, a practice's point value and the
 * author of an entry.
 */
import { eq } from 'drizzle-orm'
import type { ProgrammeRules, ProgrammeRulesInput } from '#domain/ledger.ts'
import type { Database, Transaction } from '#server/db/client.ts'
import { patients, practices, users } from '#server/db/schema.ts'
import { notFound } from '#server/lib/domain-error.ts'

/** The columns of the programme rules on the practice row. */
const ruleColumns = {
  point_value_cents: practices.point_value_cents,
  points_per_dollar: practices.points_per_dollar,
  joining_bonus: practices.joining_bonus,
  referral_bonus: practices.referral_bonus,
  expiry_months: practices.expiry_months,
  redemption_code_threshold: practices.redemption_code_threshold,
  max_points_per_line: practices.max_points_per_line,
}

/** The programme rules of `practiceId` as they stand now. */
export async function readProgrammeRules(
  db: Database | Transaction,
  practiceId: number,
): Promise<ProgrammeRules> {
  const [rules] = await db.select(ruleColumns).from(practices).where(eq(practices.id, practiceId))
  if (!rules) throw notFound('Practice not found.')
  return rules
}

/** Replaces the programme rules of `practiceId`; answers them as saved. */
export async function writeProgrammeRules(
  db: Database | Transaction,
  practiceId: number,
  rules: ProgrammeRulesInput,
): Promise<ProgrammeRules> {
  const [saved] = await db
    .update(practices)
    .set(rules)
    .where(eq(practices.id, practiceId))
    .returning(ruleColumns)
  if (!saved) throw notFound('Practice not found.')
  return saved
}

/** A patient's id, practice and balance, or undefined when no patient has the id. */
export async function patientBalance(db: Database, id: number) {
  const [row] = await db
    .select({ id: patients.id, practice_id: patients.practice_id, points: patients.points })
    .from(patients)
    .where(eq(patients.id, id))
  return row
}

/** What a point of the practice is worth, in cents (0 for no practice). */
export async function pointValueCents(db: Database, practiceId: number): Promise<number> {
  const [row] = await db
    .select({ point_value_cents: practices.point_value_cents })
    .from(practices)
    .where(eq(practices.id, practiceId))
  return row?.point_value_cents ?? 0
}

/** The staff member named as an entry's author, or null. */
export async function entryAuthor(db: Database, userId: number) {
  const [row] = await db
    .select({ id: users.id, first_name: users.first_name, last_name: users.last_name })
    .from(users)
    .where(eq(users.id, userId))
  return row ?? null
}
