import { and, eq, sql } from 'drizzle-orm'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import { LEDGER_MESSAGES, LedgerPageSchema, LedgerPostingSchema } from '#domain/ledger.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { auditEvents, ledgerEntries } from '#server/db/schema.ts'
import { messageOf, useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, testBackends } from '#server/testing/test-app.ts'

describe.each(testBackends())('the points ledger API on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')
  let patientId: number
  let keyCount = 0
  const key = () => `test-key-${Date.now()}-${keyCount++}`

  beforeAll(async () => {
    patientId = (
      await insertPatient(t.db, {
        practice_id: t.demo.practiceId,
        first_name: 'Jamie',
        last_name: 'Lopez',
        email: 'jamie.lopez@example.com',
      })
    ).id
  })

  const adjust = (points: number, token = t.demo.adminToken, body: object = {}) =>
    t.request(`/api/patients/${patientId}/adjustments`, {
      method: 'POST',
      token,
      json: { points, reason: 'birthday', idempotencyKey: key(), ...body },
    })

  const history = async (token = t.demo.adminToken) => {
    const response = await t.request(`/api/patients/${patientId}/ledger?pageSize=5`, { token })
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    return v.parse(LedgerPageSchema, await response.json())
  }

  it('starts every seeded patient with a balance that is the sum of its ledger entries', async () => {
    const drift = await t.db.execute(sql`
      select p.id, p.points, coalesce(sum(e.points), 0)::int as total
      from patients p left join ledger_entries e on e.patient_id = p.id
      group by p.id having p.points <> coalesce(sum(e.points), 0)`)
    expect((drift as unknown as { rows: unknown[] }).rows).toEqual([])
    const [seeded] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.practice_id, t.demo.practiceId))
    expect(Number(seeded?.n)).toBeGreaterThan(0)
  })

  it('lets an admin adjust +500 with a reason, shows the entry with their name, and reverses it', async () => {
    const response = await adjust(500)
    expect(response.status).toBe(201)
    const { entry, balance } = v.parse(LedgerPostingSchema, await response.json())
    expect(balance).toBe(500)
    expect(entry).toMatchObject({ kind: 'adjust', points: 500, reason: 'birthday' })
    expect(entry.created_by).toMatchObject({ id: t.demo.admin.id })

    const page = await history()
    expect(page.balance).toBe(500)
    expect(page.data[0]).toMatchObject({ id: entry.id, points: 500, reversed_by: null })

    const activity = await t.request(`/api/activities/patient/${patientId}`, {
      token: t.demo.staffToken,
    })
    const lines = (await activity.json()) as { kind: string; description: string }[]
    expect(lines[0]).toMatchObject({
      kind: 'ledger.adjust',
      description: 'Points adjusted by +500: birthday',
    })

    const undo = await t.request(`/api/ledger/${entry.id}/reverse`, {
      method: 'POST',
      token: t.demo.adminToken,
      json: { reason: 'entered by mistake' },
    })
    expect(undo.status).toBe(201)
    const reversal = v.parse(LedgerPostingSchema, await undo.json())
    expect(reversal.balance).toBe(0)
    expect(reversal.entry).toMatchObject({ kind: 'reverse', points: -500, reverses_id: entry.id })
    expect((await history()).data.find((e) => e.id === entry.id)?.reversed_by).toBe(
      reversal.entry.id,
    )

    const again = await t.request(`/api/ledger/${entry.id}/reverse`, {
      method: 'POST',
      token: t.demo.adminToken,
      json: { reason: 'twice' },
    })
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe(LEDGER_MESSAGES.alreadyReversed)
  })

  it('lets a manager adjust, and refuses staff with a sentence naming what is missing', async () => {
    expect((await adjust(20, manager.token)).status).toBe(201)
    const refused = await adjust(20, t.demo.staffToken)
    expect(refused.status).toBe(403)
    expect(await messageOf(refused)).toBe(PERMISSION_REFUSALS['points.adjust'])
    // Staff still read the history.
    expect((await history(t.demo.staffToken)).balance).toBe(20)
    const [refusal] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.action, 'permission.refused'), eq(auditEvents.user_id, t.demo.staff.id)),
      )
    expect(refusal?.details).toMatchObject({ permission: 'points.adjust' })
  })

  it('writes one entry and one audit event for a replayed idempotency key', async () => {
    const once = key()
    const first = await adjust(7, t.demo.adminToken, { idempotencyKey: once })
    const second = await adjust(7, t.demo.adminToken, { idempotencyKey: once })
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    const a = v.parse(LedgerPostingSchema, await first.json())
    const b = v.parse(LedgerPostingSchema, await second.json())
    expect(b.entry.id).toBe(a.entry.id)
    expect(b.balance).toBe(a.balance)
    const events = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.action, 'ledger.posted'),
          sql`${auditEvents.details}->>'entry_id' = ${String(a.entry.id)}`,
        ),
      )
    expect(events).toEqual([
      { details: { patient_id: patientId, entry_id: a.entry.id, kind: 'adjust', points: 7 } },
    ])
  })

  it('refuses an adjustment below zero, without a reason, and for another practice’s patient', async () => {
    const { balance } = await history()
    const overspend = await adjust(-(balance + 1))
    expect(overspend.status).toBe(409)
    expect(await messageOf(overspend)).toBe(LEDGER_MESSAGES.notEnoughPoints(balance))

    const noReason = await adjust(5, t.demo.adminToken, { reason: '   ' })
    expect(noReason.status).toBe(400)
    expect(await messageOf(noReason)).toContain('Please give a reason.')

    const foreign = await t.request(`/api/patients/${other.patientId}/adjustments`, {
      method: 'POST',
      token: t.demo.adminToken,
      json: { points: 5, reason: 'x', idempotencyKey: key() },
    })
    expect(foreign.status).toBe(404)
    const foreignHistory = await t.request(`/api/patients/${other.patientId}/ledger`, {
      token: t.demo.adminToken,
    })
    expect(foreignHistory.status).toBe(404)
  })

  it('audits every posting by ids and points, never a personal value', async () => {
    const rows = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(eq(auditEvents.action, 'ledger.posted'))
    expect(rows.length).toBeGreaterThanOrEqual(4)
    for (const row of rows) {
      expect(row.details).toMatchObject({ patient_id: patientId })
      const text = JSON.stringify(row.details)
      expect(text).not.toContain('Jamie')
      expect(text).not.toContain('jamie.lopez@example.com')
      expect(text).not.toContain('birthday')
    }
  })
})
