import { describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import type { WorklistPage } from '#domain/reports.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { httpBackends, insertPatient } from '#server/testing/test-app.ts'

describe.each(httpBackends())('the memberships on the worklist, on $name', (backend) => {
  const t = useTestApp(backend)
  const practice = usePracticeFixture(t, { name: 'Worklist Practice' })
  const manager = useMember(t, 'Manager', practice)
  const staff = useMember(t, 'Staff', practice)
  const json = async (
    path: string,
    init: { method?: string; json?: unknown; token?: string } = {},
  ) => {
    const response = await t.request(`/api${path}`, { token: manager.token, ...init })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const list = async (query: string, token = manager.token) => {
    const answer = await json(`/reports/worklist?${query}`, { token })
    expect(answer.status).toBe(200)
    return answer.body as unknown as WorklistPage
  }
  const enrol = async (
    name: string,
    planId: number,
    card: { number: string; exp_month: number; exp_year: number },
  ) => {
    const patient = await insertPatient(t.db, {
      practice_id: practice.practiceId,
      first_name: name,
      last_name: 'Member',
    })
    const token = t.payments.tokeniser.createToken({ ...card, cvc: '123' }).id
    const enrolled = await json(`/patients/${patient.id}/memberships`, {
      method: 'POST',
      token: staff.token,
      json: {
        plan_id: planId,
        payment_method_token: token,
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: name },
        idempotencyKey: `worklist-${name}-${Math.random().toString(36).slice(2)}`,
      },
    })
    expect(enrolled.status).toBe(201)
    return { membershipId: enrolled.body.id as number, patientId: patient.id }
  }

  it('lists past-due members with the plan, the next retry and (money only) the amount due, and the cards expiring this month, paged', async () => {
    expect(
      await list('list=memberships-past-due'),
      'a practice without members has an empty list',
    ).toMatchObject({ data: [], total: 0 })
    await json('/practice/payments/connect', { method: 'POST', token: practice.token })
    const plan = await json('/membership-plans', {
      method: 'POST',
      json: { ...PLAN, name: 'Worklist Monthly', min_cycles: 1 },
    })
    const planId = plan.body.id as number
    const far = { number: CARDS.ok, exp_month: 12, exp_year: 2034 }
    const owing = [await enrol('Dana', planId, far), await enrol('Eli', planId, far)]
    await enrol('Faye', planId, far)
    for (const { membershipId } of owing) {
      const swapped = await json(`/memberships/${membershipId}/card`, {
        method: 'PUT',
        json: { payment_method_token: cardToken(t, CARDS.failsWhenCharged) },
      })
      expect(swapped.status).toBe(200)
    }
    const moved = await json('/dev/clock', { method: 'POST', json: { days: 30 } })
    expect(moved.body).toMatchObject({ failed: 2 })
    const now = new Date(moved.body.now as string)

    const first = await list('list=memberships-past-due&pageSize=1')
    expect(first).toMatchObject({ list: 'memberships-past-due', total: 2, page: 1, pageSize: 1 })
    const second = await list('list=memberships-past-due&pageSize=1&page=2')
    const rows = [...first.data, ...second.data]
    expect(rows.map((row) => row.first_name).sort()).toEqual(['Dana', 'Eli'])
    for (const row of rows) {
      expect(row).toMatchObject({
        label: 'Worklist Monthly',
        amount_cents: 9_900,
        membership_id: owing.find((o) => o.patientId === row.patient_id)?.membershipId,
      })
      // The first retry is a day after the renewal that was declined.
      expect(Date.parse(row.at ?? '')).toBeGreaterThan(now.getTime())
    }
    const forStaff = await list('list=memberships-past-due', staff.token)
    expect(forStaff.total).toBe(2)
    for (const row of forStaff.data) expect(row).not.toHaveProperty('amount_cents')

    // A card that expires this month (on the billing clock), and one that does not.
    const expiring = await enrol('Gus', planId, {
      number: CARDS.ok,
      exp_month: now.getUTCMonth() + 1,
      exp_year: now.getUTCFullYear(),
    })
    const cards = await list('list=cards-expiring')
    expect(cards.total).toBe(1)
    const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0, 12))
    expect(cards.data).toEqual([
      expect.objectContaining({
        patient_id: expiring.patientId,
        membership_id: expiring.membershipId,
        label: 'Visa ending 4242',
        at: lastDay.toISOString(),
      }),
    ])
    expect(cards.data[0]).not.toHaveProperty('amount_cents')
  })
})
