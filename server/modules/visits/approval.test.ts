/**
 * A price above the catalogue's, or a line earning more points than the
 * programme's ceiling, is recorded only with a manager's approval and a reason, bound to that
 * visit's lines; otherwise the API refuses it with a sentence. Both databases.
 */
import { and, eq } from 'drizzle-orm'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type ApprovalAnswer,
  VISIT_MESSAGES,
  type VisitAnswer,
  type VisitPreview,
} from '#domain/visits.ts'
import {
  auditEvents,
  ledgerEntries,
  practices,
  procedures,
  users,
  visits,
} from '#server/db/schema.ts'
import { messageOf, useTestApp } from '#server/testing/suite.ts'
import { createMember, insertPatient, testBackends } from '#server/testing/test-app.ts'

const MANAGER = { email: 'manager@example.com', password: 'ManagerPass123' }

describe.each(testBackends())('approval of prices and points at the desk on $name', (backend) => {
  const t = useTestApp(backend)
  let botoxId: number
  let managerId: number
  let count = 0
  const key = () => `approval-key-${Date.now()}-${count++}`

  const post = (path: string, json: unknown, token: string) =>
    t.request(path, { method: 'POST', token, json })

  const newPatient = async () =>
    (
      await insertPatient(t.db, {
        practice_id: t.demo.practiceId,
        first_name: 'Quinn',
        last_name: 'Approval',
      })
    ).id

  /** The typo that started the approvals: 10 units at $100,000 each of a $300 procedure. */
  const typo = () => [{ procedure_id: botoxId, quantity: 10, price_cents: 10_000_000 }]

  /** Records a visit of `typo()` for the patient (any field of the body replaced by `body`). */
  const recordVisit = (
    patientId: number,
    body: Record<string, unknown> = {},
    token = t.demo.staffToken,
  ) =>
    post(
      '/api/visits',
      { patient_id: patientId, items: typo(), idempotencyKey: key(), ...body },
      token,
    )

  /** Asks for an approval of `typo()` for the patient with `body` (reason, manager). */
  const approve = (patientId: number, body: Record<string, unknown>, token = t.demo.staffToken) =>
    post('/api/visits/approval', { patient_id: patientId, items: typo(), ...body }, token)

  async function visitRows(patientId: number) {
    return t.db.select().from(visits).where(eq(visits.patient_id, patientId))
  }

  beforeAll(async () => {
    const [botox] = await t.db
      .insert(procedures)
      .values({ practice_id: t.demo.practiceId, name: 'Botox', price: 30_000, points: null })
      .returning({ id: procedures.id })
    if (!botox) throw new Error('no procedure')
    botoxId = botox.id
    const [manager] = await t.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, MANAGER.email))
    if (!manager) throw new Error('no demo manager')
    managerId = manager.id
  })
  beforeEach(async () => {
    t.setNow(undefined)
    await t.db
      .update(practices)
      .set({ max_points_per_line: 5000, points_per_dollar: 1 })
      .where(eq(practices.id, t.demo.practiceId))
  })

  it('refuses a Staff member 10 × $100,000 with a sentence, writing nothing', async () => {
    const patientId = await newPatient()
    const preview = await post(
      '/api/visits/preview',
      { patient_id: patientId, items: typo() },
      t.demo.staffToken,
    )
    expect(preview.status).toBe(200)
    const previewed = (await preview.json()) as VisitPreview
    const reasons = [
      'Botox at $100,000.00 is above its catalogue price of $300.00.',
      "Botox would earn 1,000,000 points, more than the programme's 5,000 a line.",
    ]
    expect(previewed.approval_needed).toEqual(reasons)
    expect(previewed.lines[0]?.points).toBe(1_000_000)

    const refused = await recordVisit(patientId)
    expect(refused.status).toBe(403)
    expect(await messageOf(refused)).toBe(VISIT_MESSAGES.approvalNeeded(reasons))
    expect(await visitRows(patientId)).toEqual([])
    expect(
      await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId)),
    ).toEqual([])

    // A Staff member cannot approve by giving a reason of their own.
    const selfApproved = await recordVisit(patientId, { approval: { reason: 'I say so' } })
    expect(selfApproved.status).toBe(403)
    const fromOwnSession = await approve(patientId, { reason: 'I say so' })
    expect(fromOwnSession.status).toBe(403)
    expect(await messageOf(fromOwnSession)).toBe(VISIT_MESSAGES.approverNotManager)
  })

  it('refuses points above the ceiling at the catalogue price; the ceiling is the Admin’s rule', async () => {
    const patientId = await newPatient()
    await t.db
      .update(practices)
      .set({ max_points_per_line: 500 })
      .where(eq(practices.id, t.demo.practiceId))
    const refused = await recordVisit(patientId, {
      items: [{ procedure_id: botoxId, quantity: 2 }],
    })
    expect(refused.status).toBe(403)
    expect(await messageOf(refused)).toBe(
      VISIT_MESSAGES.approvalNeeded([
        "Botox would earn 600 points, more than the programme's 500 a line.",
      ]),
    )
    // Within the rules nothing is asked.
    const one = await recordVisit(patientId, { items: [{ procedure_id: botoxId, quantity: 1 }] })
    expect(one.status).toBe(201)
  })

  it('records it with a Manager who signs in at the desk; the approval fits only those lines, once', async () => {
    const patientId = await newPatient()
    const wrong = await approve(patientId, {
      reason: 'Package price agreed',
      manager: { email: MANAGER.email, password: 'not-the-password' },
    })
    expect(wrong.status).toBe(422)
    expect(await messageOf(wrong)).toBe(VISIT_MESSAGES.approverCredentials)

    const approved = await approve(patientId, {
      reason: 'Package price agreed with the owner',
      manager: MANAGER,
    })
    expect(approved.status).toBe(201)
    const approval = (await approved.json()) as ApprovalAnswer
    const withToken = { approval: { token: approval.token } }
    expect(approval.approved_by.id).toBe(managerId)

    // Not for other amounts, nor for another patient.
    const otherAmount = await recordVisit(patientId, {
      ...withToken,
      items: [{ procedure_id: botoxId, quantity: 20, price_cents: 10_000_000 }],
    })
    expect(otherAmount.status).toBe(403)
    expect(await messageOf(otherAmount)).toBe(VISIT_MESSAGES.approvalInvalid)
    const otherPatient = await recordVisit(await newPatient(), withToken)
    expect(otherPatient.status).toBe(403)

    const recorded = await recordVisit(patientId, withToken)
    expect(recorded.status).toBe(201)
    const answer = (await recorded.json()) as VisitAnswer
    expect(answer.visit.total_cents).toBe(100_000_000)
    expect(answer.visit.approval).toEqual({
      approved_by: approval.approved_by,
      reason: 'Package price agreed with the owner',
    })
    const [row] = await visitRows(patientId)
    expect(row).toMatchObject({
      approved_by: managerId,
      approval_reason: 'Package price agreed with the owner',
    })

    // Once: the same approval does not record a second visit.
    const again = await recordVisit(patientId, withToken)
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe(VISIT_MESSAGES.approvalUsed)

    // The activity log says who approved and why.
    const log = await t.request('/api/audit?action=visit.recorded', { token: t.demo.adminToken })
    const page = (await log.json()) as { data: { summary: string; patient_id: number | null }[] }
    const event = page.data.find((e) => e.patient_id === patientId)
    expect(event?.summary).toMatch(
      /recorded a visit for Quinn Approval: 1,000,000 points earned \(approved by .+: Package price agreed with the owner\)\.$/,
    )
    const [audited] = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(
        and(eq(auditEvents.action, 'visit.approved'), eq(auditEvents.user_id, t.demo.staff.id)),
      )
    expect(audited?.details).toMatchObject({ patient_id: patientId, member: managerId })
  })

  it('lets a Manager approve from their own session with a reason, and the approval expires', async () => {
    const patientId = await newPatient()
    const manager = await createMember(t.db, t.demo.practiceId, 'Manager')
    const noReason = await recordVisit(patientId, {}, manager.token)
    expect(noReason.status).toBe(403)
    const own = await recordVisit(
      patientId,
      { approval: { reason: 'Corrected at the desk' } },
      manager.token,
    )
    expect(own.status).toBe(201)
    expect(await visitRows(patientId)).toEqual([
      expect.objectContaining({
        approved_by: manager.user.id,
        approval_reason: 'Corrected at the desk',
      }),
    ])

    const second = await newPatient()
    const approved = await approve(second, { reason: 'Approved from my session' }, manager.token)
    expect(approved.status).toBe(201)
    const { token } = (await approved.json()) as ApprovalAnswer
    t.setNow(new Date(Date.now() + 16 * 60 * 1000))
    const late = await recordVisit(second, { approval: { token } })
    expect(late.status).toBe(403)
    expect(await messageOf(late)).toBe(VISIT_MESSAGES.approvalInvalid)
  })

  it('refuses a Staff member as the approver, and limits password guesses like a sign-in', async () => {
    const patientId = await newPatient()
    const staff = await approve(patientId, {
      reason: 'x',
      manager: { email: 'staff@example.com', password: 'StaffPass123' },
    })
    expect(staff.status).toBe(403)
    expect(await messageOf(staff)).toBe(VISIT_MESSAGES.approverNotManager)

    const email = `guess-${backend.name.toLowerCase()}@example.com`
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) {
      const answer = await approve(patientId, {
        reason: 'x',
        manager: { email, password: `p${i}` },
      })
      statuses.push(answer.status)
    }
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429, 429])
    // Someone else's failures at this desk never refuse the real manager.
    const approved = await approve(patientId, { reason: 'x', manager: MANAGER })
    expect(approved.status).toBe(201)
  })
})
