import { describe, expect, it } from 'vitest'
import { ACTION_LABELS, AUDIT_ACTIONS, activityRange, describeActivity } from './activity-log.ts'

const names = {
  actor: "Alex O'Hara",
  patient: 'Jamie Lopez',
  member: 'Riley Chen',
  entry: { kind: 'adjust', points: 500, reason: 'birthday' },
}

describe('the activity log in words', () => {
  it('says every action the trail records in a sentence of its own, with a label to filter by', () => {
    for (const action of AUDIT_ACTIONS) {
      const sentence = describeActivity(action, {}, names)
      expect(sentence, action).toMatch(/^[A-Z].*[.]$/)
      expect(sentence, action).not.toContain(action)
      expect(ACTION_LABELS[action].label, action).not.toBe('')
    }
    expect(new Set(AUDIT_ACTIONS.map((a) => describeActivity(a, {}, names))).size).toBe(
      AUDIT_ACTIONS.length,
    )
  })

  it('says how many points an import posted as opening balances', () => {
    expect(
      describeActivity(
        'patients.imported',
        { created: 292, rejected: 9, already_imported: 0, points_posted: 198_615 },
        names,
      ),
    ).toBe(
      "Alex O'Hara imported 292 patients from a CSV file (9 rows not imported), with 198,615 points of opening balances.",
    )
  })

  it('names who did what to whom, with the amounts and the reason', () => {
    expect(describeActivity('ledger.posted', {}, names)).toBe(
      "Alex O'Hara adjusted Jamie Lopez's points by +500: birthday.",
    )
    const reversal = { ...names, entry: { kind: 'reverse', points: -500, reason: 'typo' } }
    expect(describeActivity('ledger.posted', {}, reversal)).toBe(
      "Alex O'Hara reversed -500 on Jamie Lopez's points: typo.",
    )
    expect(
      describeActivity('user.role_changed', { member: 4, from: 'Staff', to: 'Manager' }, names),
    ).toBe("Alex O'Hara changed Riley Chen's role from Staff to Manager.")
    expect(
      describeActivity(
        'practice.rules_changed',
        { points_per_dollar_before: 1, points_per_dollar_after: 2 },
        names,
      ),
    ).toBe("Alex O'Hara changed the programme rules: points per dollar 1 → 2.")
    expect(
      describeActivity('visit.recorded', { earned: 120, redeemed: 500, bonus: 0 }, names),
    ).toBe("Alex O'Hara recorded a visit for Jamie Lopez: 120 points earned, 500 points redeemed.")
    expect(
      describeActivity(
        'visit.recorded',
        { earned: 149, discount_cents: 5000, promotion_id: 3, title: '$50 off HydraFacial' },
        names,
      ),
    ).toBe(
      "Alex O'Hara recorded a visit for Jamie Lopez: 149 points earned, $50.00 off with the offer “$50 off HydraFacial”.",
    )
    expect(describeActivity('permission.refused', { permission: 'points.adjust' }, names)).toBe(
      "Alex O'Hara was refused: Only a manager or an admin can adjust or reverse points.",
    )
  })

  it('reads a name that is gone as someone, a patient or a colleague', () => {
    const none = { actor: null, patient: null, member: null, entry: null }
    expect(describeActivity('patient.viewed', {}, none)).toBe("Someone opened a patient's profile.")
    expect(describeActivity('user.deactivated', {}, none)).toBe('Someone deactivated a colleague.')
    expect(describeActivity('signin.failure', {}, none)).toBe('A sign-in failed.')
  })

  it('reads a day as a UTC day, to inclusive, and an instant as it is', () => {
    expect(activityRange('2026-11-24', '2026-11-24')).toEqual({
      start: new Date('2026-11-24T00:00:00Z'),
      end: new Date('2026-11-25T00:00:00Z'),
    })
    expect(activityRange('2026-11-24T05:00:00.000Z', '2026-11-25T05:00:00.000Z')).toEqual({
      start: new Date('2026-11-24T05:00:00Z'),
      end: new Date('2026-11-25T05:00:00Z'),
    })
  })
})
