import { describe, expect, it } from 'vitest'
import { describeEntry, LEDGER_MESSAGES } from '#domain/ledger.ts'
import { formatPoints, pointsText, signedPoints } from '#domain/points.ts'
import { VISIT_MESSAGES } from '#domain/visits.ts'
import { reminderContent, statementContent } from '#server/modules/patient-mail/service.ts'

const entry = (kind: Parameters<typeof describeEntry>[0]['kind'], points: number) => ({
  kind,
  points,
  source_type: 'visit',
  reason: null,
  reverses_id: 12,
})

describe('numbers of points (written with a thousands separator)', () => {
  it('writes the count, the unit and the sign', () => {
    expect(formatPoints(1120)).toBe('1,120')
    expect(formatPoints(-1_234_567)).toBe('-1,234,567')
    expect(pointsText(1120)).toBe('1,120 points')
    expect(pointsText(1)).toBe('1 point')
    expect(pointsText(0)).toBe('0 points')
    expect(signedPoints(1120)).toBe('+1,120')
    expect(signedPoints(-2500)).toBe('−2,500')
    expect(signedPoints(-2500, '-')).toBe('-2,500')
  })

  it("writes the patient's history with separators", () => {
    expect(describeEntry(entry('earn', 1120))).toBe('Earned 1,120 points for a visit')
    expect(describeEntry(entry('redeem', -1500))).toBe('Redeemed 1,500 points at a visit')
    expect(describeEntry(entry('expire', -2000))).toBe('2,000 points expired')
    expect(describeEntry({ ...entry('adjust', 1000), source_type: 'manual' })).toBe(
      'Points adjusted by +1,000',
    )
    expect(describeEntry(entry('reverse', -1120))).toBe('Reversed entry #12 (-1,120)')
    expect(describeEntry({ ...entry('bonus', 5000), source_type: 'joining' })).toBe(
      'Bonus of 5,000 points for joining',
    )
  })

  it('writes the refusals with separators', () => {
    expect(LEDGER_MESSAGES.notEnoughPoints(1120)).toBe('Not enough points: the balance is 1,120.')
    expect(VISIT_MESSAGES.codeNeeded(2500)).toBe(
      "The patient's code is needed to redeem 2,500 points.",
    )
  })

  it("writes the patients' e-mails with separators", () => {
    const practice = { practice_name: 'Glow Clinic' } as never
    const statement = statementContent(
      practice,
      { first_name: 'Jane' },
      { earned: 1120, balance: 12_345, visitedAt: new Date('2026-11-20T12:00:00Z') },
    )
    expect(statement.paragraphs).toContain('Your balance is now 12,345 points.')
    expect(statement.paragraphs.join(' ')).toContain('You earned 1,120 points.')
    const reminder = reminderContent(
      practice,
      { first_name: 'Jane' },
      { points: 1500, balance: 3000, expiresAt: new Date('2026-12-20T12:00:00Z') },
    )
    expect(reminder.subject).toBe('1,500 points expire on December 20, 2026')
  })
})
