import { and, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { DEFAULT_PROGRAMME_RULES, type ProgrammeRules } from '#domain/ledger.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { auditEvents, ledgerEntries } from '#server/db/schema.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

type Answer = { status: number; body: unknown }

describe.each(httpBackends())('the programme rules on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')

  const read = async (token = t.demo.staffToken): Promise<Answer> => {
    const response = await t.request('/api/practice/rules', { token })
    return { status: response.status, body: await response.json() }
  }
  const save = async (rules: object, token = t.demo.adminToken): Promise<Answer> => {
    const response = await t.request('/api/practice/rules', {
      method: 'PUT',
      token,
      json: rules,
    })
    return { status: response.status, body: await response.json() }
  }
  const addPatient = async (last: string) => {
    const response = await t.request('/api/patients', {
      method: 'POST',
      token: t.demo.staffToken,
      json: { first_name: 'Joan', last_name: last },
    })
    expect(response.status).toBe(201)
    return (await response.json()) as { id: number; points: number }
  }

  it('shows every member the rules, and lets only an Admin change them, saying why', async () => {
    expect(await read()).toEqual({ status: 200, body: DEFAULT_PROGRAMME_RULES })
    const next: ProgrammeRules = { ...DEFAULT_PROGRAMME_RULES, point_value_cents: 5 }
    for (const token of [t.demo.staffToken, manager.token]) {
      expect(await save(next, token)).toMatchObject({
        status: 403,
        body: { error: { message: PERMISSION_REFUSALS['practice.settings'] } },
      })
    }
    expect(await read()).toEqual({ status: 200, body: DEFAULT_PROGRAMME_RULES })
  })

  it('refuses bad values with a sentence per field and keeps the rules', async () => {
    const answer = await save({
      ...DEFAULT_PROGRAMME_RULES,
      point_value_cents: 0,
      expiry_months: 1.5,
      joining_bonus: -5,
      max_points_per_line: 0,
    })
    expect(answer.status).toBe(400)
    const issues = (answer.body as { error: { details: { issues: { message: string }[] } } }).error
      .details.issues
    expect(issues.map((issue) => issue.message)).toEqual([
      'Point value must be at least 1 cent.',
      'Joining bonus cannot be negative.',
      'Expiry must be a whole number.',
      'Points ceiling per line must be at least 1.',
    ])
    expect((await read()).body).toEqual(DEFAULT_PROGRAMME_RULES)
  })

  it("saves an Admin's change for their practice only, audits it, and applies it from then on", async () => {
    const before = await addPatient('Before')
    const next: ProgrammeRules = {
      point_value_cents: 5,
      points_per_dollar: 2,
      joining_bonus: 250,
      referral_bonus: 40,
      expiry_months: 6,
      redemption_code_threshold: 1000,
      max_points_per_line: 800,
    }
    // A practice id in the body is not the caller's to choose.
    expect(await save({ ...next, practice_id: other.practiceId })).toEqual({
      status: 200,
      body: next,
    })
    expect(await read()).toEqual({ status: 200, body: next })
    const otherRules = await t.request('/api/practice/rules', { token: other.token })
    expect(await otherRules.json()).toEqual(DEFAULT_PROGRAMME_RULES)

    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.action, 'practice.rules_changed'),
          eq(auditEvents.practice_id, t.demo.practiceId),
        ),
      )
    expect(event?.details).toEqual({
      point_value_cents_before: 10,
      point_value_cents_after: 5,
      points_per_dollar_before: 1,
      points_per_dollar_after: 2,
      joining_bonus_before: 0,
      joining_bonus_after: 250,
      referral_bonus_before: 0,
      referral_bonus_after: 40,
      expiry_months_before: 12,
      expiry_months_after: 6,
      redemption_threshold_before: 0,
      redemption_threshold_after: 1000,
      max_points_per_line_before: 5000,
      max_points_per_line_after: 800,
    })

    // From then on: a new patient gets the joining bonus once, in the ledger; one added before
    // the change does not.
    const after = await addPatient('After')
    expect(after.points).toBe(250)
    const bonus = await t.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, after.id))
    expect(bonus).toEqual([
      expect.objectContaining({ kind: 'bonus', points: 250, source_type: 'joining' }),
    ])
    const untouched = await t.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, before.id))
    expect(untouched).toEqual([])
    const profile = await t.request(`/api/patients/${after.id}/ledger`, {
      token: t.demo.staffToken,
    })
    expect(await profile.json()).toMatchObject({ balance_value_cents: 250 * 5 })
    // Back to the defaults for the suites that share this database.
    expect((await save(DEFAULT_PROGRAMME_RULES)).status).toBe(200)
  })

  it('keeps the referral bonus as it is when a client written before it leaves it out', async () => {
    expect((await save({ ...DEFAULT_PROGRAMME_RULES, referral_bonus: 75 })).status).toBe(200)
    const { referral_bonus: _left, ...older } = { ...DEFAULT_PROGRAMME_RULES, joining_bonus: 20 }
    expect(await save(older)).toEqual({
      status: 200,
      body: { ...DEFAULT_PROGRAMME_RULES, joining_bonus: 20, referral_bonus: 75 },
    })
    expect((await save(DEFAULT_PROGRAMME_RULES)).status).toBe(200)
  })
})
