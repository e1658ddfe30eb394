/**
 * Changing the programme rules: the new values and the audit event with the values before and
 * after, in one transaction (rules are the practice's settings, not personal data).
 */
import type { ProgrammeRules, ProgrammeRulesInput } from '#domain/ledger.ts'
import { recordWithin } from '#server/audit/audit.ts'
import type { Database } from '#server/db/client.ts'
import { readProgrammeRules, writeProgrammeRules } from './queries.ts'

/**
 * The name of each rule in an audit event. The trail drops keys that look like secrets (`code`
 * among them), so the code threshold is recorded under a name without the word.
 */
const AUDIT_NAMES: Record<keyof ProgrammeRules, string> = {
  point_value_cents: 'point_value_cents',
  points_per_dollar: 'points_per_dollar',
  joining_bonus: 'joining_bonus',
  referral_bonus: 'referral_bonus',
  expiry_months: 'expiry_months',
  redemption_code_threshold: 'redemption_threshold',
  max_points_per_line: 'max_points_per_line',
}

/**
 * Replaces the practice's rules (a referral bonus left out stays as it is) and records `practice.rules_changed` with each changed rule
 * before and after; answers the rules as saved. A change applies from then on.
 */
export async function changeProgrammeRules(
  { db, now }: { db: Database; now: () => Date },
  change: { practiceId: number; userId: number; ip: string | null; rules: ProgrammeRulesInput },
): Promise<ProgrammeRules> {
  return db.transaction(async (tx) => {
    const before = await readProgrammeRules(tx, change.practiceId)
    const after = await writeProgrammeRules(tx, change.practiceId, change.rules)
    const changed = Object.fromEntries(
      (Object.keys(after) as (keyof ProgrammeRules)[])
        .filter((key) => before[key] !== after[key])
        .flatMap((key) => [
          [`${AUDIT_NAMES[key]}_before`, before[key]],
          [`${AUDIT_NAMES[key]}_after`, after[key]],
        ]),
    )
    await recordWithin(
      tx,
      {
        action: 'practice.rules_changed',
        userId: change.userId,
        practiceId: change.practiceId,
        ip: change.ip,
        details: changed,
      },
      now(),
    )
    return after
  })
}
