import { randomBytes } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import { ActivityPageSchema } from '#domain/activity-log.ts'
import { LedgerPageSchema } from '#domain/ledger.ts'
import {
  DuplicatePageSchema,
  MERGE_MESSAGES,
  MergeAnswerSchema,
  MergePreviewSchema,
} from '#domain/patient-merge.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { PatientPageSchema, PatientSchema } from '#domain/practice-data.ts'
import {
  appointments,
  ledgerEntries,
  patientPromotions,
  patients,
  procedures,
  promotions,
  visits,
} from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger } from '#server/modules/ledger/service.ts'
import { messageOf, useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, type PatientValues, testBackends } from '#server/testing/test-app.ts'
import { rowsOf } from './queries.ts'

describe.each(testBackends())('possible duplicates and merging patients on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')
  let promotionId: number
  let serial = 0
  const unique = () => `${Date.now()}${serial++}${randomBytes(2).toString('hex')}`
  const key = () => `merge-test-${unique()}`

  /** A distinct E.164 phone for each call, so pairs never meet the seed's patients. */
  const phone = () => `+1415${String(5_000_000 + Math.floor(Math.random() * 4_999_999))}`

  const addPatient = async (values: Partial<PatientValues> = {}) =>
    (
      await insertPatient(t.db, {
        practice_id: t.demo.practiceId,
        first_name: 'Marilyn',
        last_name: 'Anderson',
        ...values,
      })
    ).id

  const ledgerOf = () => createLedger({ db: t.db, now: () => new Date() })

  /** A patient with a history: two lots, one redemption, a visit, an appointment and a claim. */
  const withHistory = async (id: number, earned = 300) => {
    const ledger = ledgerOf()
    const actor = { practiceId: t.demo.practiceId, patientId: id, userId: t.demo.admin.id }
    await ledger.credit({
      ...actor,
      kind: 'earn',
      points: earned,
      sourceType: 'visit',
      idempotencyKey: key(),
    })
    await ledger.adjust({ ...actor, points: 50, reason: 'welcome back', idempotencyKey: key() })
    await ledger.redeem({ ...actor, points: 100, sourceType: 'manual', idempotencyKey: key() })
    await t.db.insert(visits).values({
      practice_id: t.demo.practiceId,
      patient_id: id,
      total_cents: 19900,
      idempotency_key: key(),
    })
    await t.db.insert(appointments).values({
      practice_id: t.demo.practiceId,
      patient_id: id,
      starts_at: new Date(Date.now() + 86_400_000),
    })
    await t.db.insert(patientPromotions).values({
      practice_id: t.demo.practiceId,
      patient_id: id,
      promotion_id: promotionId,
      status: 'claimed',
      claimed_at: new Date(),
    })
  }

  const pointsOf = async (id: number) => {
    const [row] = await t.db
      .select({ points: patients.points })
      .from(patients)
      .where(eq(patients.id, id))
    return row?.points ?? -1
  }
  const ledgerSum = async (id: number) => {
    const [row] = await t.db
      .select({ total: sql<number>`coalesce(sum(${ledgerEntries.points}), 0)::int` })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, id))
    return Number(row?.total ?? -1)
  }
  /** Rows of `id` left in every table that has a `patient_id`. */
  const rowsLeft = async (id: number) => {
    const tables = rowsOf<{ name: string }>(
      await t.db.execute(sql`
        select table_name as name from information_schema.columns
        where column_name = 'patient_id' and table_schema = current_schema()`),
    ).map((r) => r.name)
    expect(tables).toEqual(
      expect.arrayContaining([
        'ledger_entries',
        'ledger_allocations',
        'visits',
        'visit_items',
        'appointments',
        'patient_promotions',
        'promotion_sends',
        'activities',
        'patient_import_rows',
        'redemption_codes',
        'codeless_redemptions',
        'points_reminders',
      ]),
    )
    const left: Record<string, number> = {}
    for (const table of tables) {
      const [row] = rowsOf<{ n: number }>(
        await t.db.execute(
          sql`select count(*)::int as n from ${sql.identifier(table)} where patient_id = ${id}`,
        ),
      )
      if (Number(row?.n) > 0) left[table] = Number(row?.n)
    }
    return left
  }

  const preview = (keptId: number, mergedId: number, token = manager.token) =>
    t.request(`/api/patients/${keptId}/merge/${mergedId}`, { token })
  const merge = (keptId: number, mergedId: number, token = manager.token, idempotencyKey = key()) =>
    t.request(`/api/patients/${keptId}/merge/${mergedId}`, {
      method: 'POST',
      token,
      json: { idempotencyKey },
    })

  beforeAll(async () => {
    const [promotion] = await t.db
      .insert(promotions)
      .values({ practice_id: t.demo.practiceId, title: 'Merge test offer', points: 0 })
      .returning({ id: promotions.id })
    if (!promotion) throw new Error('no promotion')
    promotionId = promotion.id
  })

  it('lists active patients sharing a phone or an e-mail (any case) as pairs, archived ones not', async () => {
    const sharedPhone = phone()
    const mail = `dup-${unique()}@example.com`
    const a = await addPatient({ last_name: 'Aardvark', phone: sharedPhone })
    const b = await addPatient({ last_name: 'Aardvark', phone: sharedPhone, email: mail })
    const c = await addPatient({ last_name: 'Aardvark', email: mail.toUpperCase() })
    const archived = await addPatient({
      last_name: 'Aardvark',
      phone: sharedPhone,
      archived_at: new Date(),
    })
    const response = await t.request('/api/patients/duplicates?pageSize=100', {
      token: manager.token,
    })
    expect(response.status).toBe(200)
    const page = v.parse(DuplicatePageSchema, await response.json())
    const ours = page.data.filter((pair) => [a, b, c, archived].includes(pair.first.id))
    expect(ours.map((p) => [p.first.id, p.second.id, p.reasons])).toEqual([
      [a, b, ['phone']],
      [b, c, ['email']],
    ])
    expect(page.total).toBeGreaterThanOrEqual(2)
    // A page past the last one is empty and still counts the pairs.
    const past = v.parse(
      DuplicatePageSchema,
      await (
        await t.request('/api/patients/duplicates?page=999&pageSize=100', { token: manager.token })
      ).json(),
    )
    expect(past).toMatchObject({ data: [], total: page.total, page: 999 })
  })

  it('refuses the review list and the merge to Staff with the sentence naming the role needed', async () => {
    const a = await addPatient()
    const b = await addPatient()
    for (const response of [
      await t.request('/api/patients/duplicates', { token: t.demo.staffToken }),
      await preview(a, b, t.demo.staffToken),
      await merge(a, b, t.demo.staffToken),
    ]) {
      expect(response.status).toBe(403)
      expect(await messageOf(response)).toBe(PERMISSION_REFUSALS['patients.merge'])
    }
    expect(PERMISSION_REFUSALS['patients.merge']).toBe(
      'Only a manager or an admin can review possible duplicates and merge patients.',
    )
    expect(await rowsLeft(b)).toEqual({})
    expect(await pointsOf(a)).toBe(0)
  })

  it('previews what moves, the balance after, the fields filled and the consents, changing nothing', async () => {
    const kept = await addPatient({ phone: phone(), email_subscription: true })
    const merged = await addPatient({
      email: `merged-${unique()}@example.com`,
      birth_date: '1980-04-02',
      email_subscription: false,
    })
    await withHistory(kept, 100)
    await withHistory(merged, 400)
    const response = await preview(kept, merged)
    expect(response.status).toBe(200)
    const body = v.parse(MergePreviewSchema, await response.json())
    expect(body.moves).toMatchObject({
      ledger_entries: 3,
      visits: 1,
      appointments: 1,
      claims: 1,
      offers_sent: 0,
    })
    // The redemption's allocations move too.
    expect(body.moves.other).toBeGreaterThan(0)
    expect(body.balance).toBe(50 + 350)
    expect(body.fills).toEqual(['email', 'birth_date'])
    expect(body.email_subscription).toBe(false)
    expect(body.kept.id).toBe(kept)
    expect(body.merged.id).toBe(merged)
    expect(await pointsOf(merged)).toBe(350)
    expect(await rowsLeft(merged)).toMatchObject({ ledger_entries: 3, visits: 1 })
  })

  it('merges: every row moves, the balance is the ledger sum, the merged record is archived with its link, and the log names both', async () => {
    const keptPhone = phone()
    const kept = await addPatient({
      first_name: 'Keeper',
      phone: keptPhone,
      sms_subscription: true,
    })
    const merged = await addPatient({
      first_name: 'Merger',
      phone: keptPhone,
      email: `merger-${unique()}@example.com`,
      sms_subscription: false,
    })
    await withHistory(kept, 200)
    await withHistory(merged, 500)
    const entriesBefore = (
      await t.db
        .select({ id: ledgerEntries.id })
        .from(ledgerEntries)
        .where(eq(ledgerEntries.patient_id, merged))
    ).map((e) => e.id)

    const response = await merge(kept, merged)
    expect(response.status).toBe(201)
    const answer = v.parse(MergeAnswerSchema, await response.json())
    expect(answer.replayed).toBe(false)
    expect(answer.moved).toMatchObject({ ledger_entries: 3, visits: 1, appointments: 1 })
    // The kept patient's open claim of the offer stays; the merged one's duplicate claim closes.
    expect(answer.moved.claims).toBe(1)
    expect(answer.kept.points).toBe(150 + 450)
    expect(answer.kept.email).toMatch(/^merger-/)
    expect(answer.kept.sms_subscription).toBe(false)
    expect(answer.merged).toMatchObject({ archived: true, merged_into_id: kept, points: 0 })

    expect(await pointsOf(kept)).toBe(await ledgerSum(kept))
    expect(await ledgerSum(kept)).toBe(600)
    expect(await rowsLeft(merged)).toEqual({})
    // The ledger kept every entry, each now the kept patient's.
    const moved = await t.db
      .select({ id: ledgerEntries.id, patient_id: ledgerEntries.patient_id })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, kept))
    expect(moved.map((e) => e.id)).toEqual(expect.arrayContaining(entriesBefore))
    const claims = await t.db
      .select({ status: patientPromotions.status })
      .from(patientPromotions)
      .where(eq(patientPromotions.patient_id, kept))
    expect(claims.map((c) => c.status).sort()).toEqual(['claimed', 'expired'])

    // The history on the kept patient holds both patients' entries, its running balance ends at
    // the balance.
    const history = v.parse(
      LedgerPageSchema,
      await (
        await t.request(`/api/patients/${kept}/ledger?pageSize=100`, { token: manager.token })
      ).json(),
    )
    expect(history.total).toBe(6)
    expect(history.balance).toBe(600)
    expect(history.data[0]?.balance_after).toBe(600)

    // The merged record reads as merged, and is in no list or search any more.
    const read = v.parse(
      PatientSchema,
      await (await t.request(`/api/patients/${merged}`, { token: manager.token })).json(),
    )
    expect(read).toMatchObject({ archived: true, merged_into_id: kept })
    for (const query of ['search=Merger', 'search=Merger&archived=true']) {
      const list = v.parse(
        PatientPageSchema,
        await (await t.request(`/api/patients?${query}`, { token: manager.token })).json(),
      )
      expect(list.data.map((p) => p.id)).not.toContain(merged)
    }
    const keeper = v.parse(
      PatientPageSchema,
      await (await t.request('/api/patients?search=Keeper', { token: manager.token })).json(),
    )
    expect(keeper.data.map((p) => p.id)).toContain(kept)

    const log = v.parse(
      ActivityPageSchema,
      await (
        await t.request('/api/audit?action=patient.merged', { token: t.demo.adminToken })
      ).json(),
    )
    expect(log.data[0]?.summary).toBe(
      'Morgan Manager merged Merger Anderson into Keeper Anderson, moving 3 ledger entries.',
    )
    expect(log.data[0]?.patient_id).toBe(kept)

    // The kept patient's details can be saved as they are: the merged record's phone is no rival.
    const saved = await t.request(`/api/patients/${kept}`, {
      method: 'PUT',
      token: manager.token,
      json: { phone: keptPhone },
    })
    expect(saved.status).toBe(200)
    // And the merged record cannot come back.
    const restore = await t.request(`/api/patients/${merged}/restore`, {
      method: 'POST',
      token: manager.token,
    })
    expect(restore.status).toBe(409)
    expect(await messageOf(restore)).toBe(MERGE_MESSAGES.restoreMerged)
  })

  it('answers the same merge again (same pair, or same key) without moving anything twice', async () => {
    const kept = await addPatient()
    const merged = await addPatient()
    await withHistory(merged, 250)
    const idempotencyKey = key()
    const first = await merge(kept, merged, manager.token, idempotencyKey)
    expect(first.status).toBe(201)
    const done = v.parse(MergeAnswerSchema, await first.json())
    for (const again of [
      await merge(kept, merged, manager.token, idempotencyKey),
      await merge(kept, merged),
    ]) {
      expect(again.status).toBe(200)
      const replay = v.parse(MergeAnswerSchema, await again.json())
      expect(replay).toMatchObject({ id: done.id, replayed: true, moved: done.moved })
    }
    expect(await pointsOf(kept)).toBe(200)
    expect(await ledgerSum(kept)).toBe(200)
    // One event, written by the merge's own transaction (PostgreSQL's `xmin` names the
    // transaction that wrote a row); the replays recorded nothing.
    const events = rowsOf<{ tx: string }>(
      await t.db.execute(
        sql`select xmin::text as tx from audit_events where action = 'patient.merged' and (details->>'merged_patient_id')::int = ${merged}`,
      ),
    )
    const recorded = rowsOf<{ tx: string }>(
      await t.db.execute(sql`select xmin::text as tx from patient_merges where id = ${done.id}`),
    )
    expect(events).toEqual(recorded)
    expect(events).toHaveLength(1)
    // The key of that merge for another pair is refused.
    const third = await addPatient()
    const reused = await merge(kept, third, manager.token, idempotencyKey)
    expect(reused.status).toBe(409)
    expect(await messageOf(reused)).toBe(MERGE_MESSAGES.keyReused)
  })

  it('refuses a patient into itself, an archived or merged patient, and another practice, each with a sentence', async () => {
    const a = await addPatient({ first_name: 'Ada' })
    const b = await addPatient({ first_name: 'Bea' })
    const archived = await addPatient({ first_name: 'Cara', archived_at: new Date() })

    const self = await merge(a, a)
    expect(self.status).toBe(400)
    expect(await messageOf(self)).toBe(MERGE_MESSAGES.samePatient)

    const toArchived = await merge(a, archived)
    expect(toArchived.status).toBe(409)
    expect(await messageOf(toArchived)).toBe(
      'Cara Anderson is archived: restore them before merging.',
    )
    const previewArchived = await preview(archived, a)
    expect(previewArchived.status).toBe(409)

    expect((await merge(a, b)).status).toBe(201)
    const again = await merge(await addPatient(), b)
    expect(again.status).toBe(409)
    expect(await messageOf(again)).toBe('Bea Anderson was already merged into another patient.')
    // The other way round is refused too: the merged one cannot become the kept one.
    const reverse = await merge(b, a)
    expect(reverse.status).toBe(409)

    for (const response of [await merge(a, other.patientId), await preview(other.patientId, a)]) {
      expect(response.status).toBe(404)
      expect(await messageOf(response)).toBe(MERGE_MESSAGES.notFound)
    }
    const [foreign] = await t.db
      .select({ merged_into_id: patients.merged_into_id, archived_at: patients.archived_at })
      .from(patients)
      .where(eq(patients.id, other.patientId))
    expect(foreign).toEqual({ merged_into_id: null, archived_at: null })
  })

  it('unsubscribes the kept patient from an e-mail link of the merged one', async () => {
    const kept = await addPatient({ email_subscription: true })
    const token = randomToken()
    const merged = await addPatient({ unsubscribe_id: token, email_subscription: true })
    expect((await merge(kept, merged)).status).toBe(201)
    const response = await t.request(`/api/patients/unsubscribe/${token}`, {
      method: 'PUT',
      json: { email_subscription: false },
    })
    expect(response.status).toBe(200)
    const [row] = await t.db
      .select({ email_subscription: patients.email_subscription })
      .from(patients)
      .where(eq(patients.id, kept))
    expect(row?.email_subscription).toBe(false)
  })

  it('keeps the ledger append-only except for the merge: an entry moves only to the patient its own was merged into', async () => {
    const a = await addPatient()
    const b = await addPatient()
    await withHistory(a)
    const [entry] = await t.db
      .select({ id: ledgerEntries.id })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.patient_id, a))
      .limit(1)
    if (!entry) throw new Error('no entry')
    await expect(
      t.db.update(ledgerEntries).set({ patient_id: b }).where(eq(ledgerEntries.id, entry.id)),
    ).rejects.toThrow()
    await expect(
      t.db.update(ledgerEntries).set({ points: 1 }).where(eq(ledgerEntries.id, entry.id)),
    ).rejects.toThrow()
    await expect(t.db.delete(ledgerEntries).where(eq(ledgerEntries.id, entry.id))).rejects.toThrow()
    expect(await ledgerSum(a)).toBe(250)
  })

  it('two merges of the same pair at once move the points once', async () => {
    const kept = await addPatient()
    const merged = await addPatient()
    await withHistory(kept, 100)
    await withHistory(merged, 700)
    const before = (await pointsOf(kept)) + (await pointsOf(merged))
    const answers = await Promise.all([
      merge(kept, merged),
      merge(kept, merged),
      merge(kept, merged),
    ])
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201])
    expect(await pointsOf(kept)).toBe(before)
    expect(await ledgerSum(kept)).toBe(before)
    expect(await pointsOf(merged)).toBe(0)
    expect(await rowsLeft(merged)).toEqual({})
  })

  it('a merge each way at once: one happens, the other is refused, no point lost or doubled', async () => {
    const a = await addPatient()
    const b = await addPatient()
    await withHistory(a, 150)
    await withHistory(b, 350)
    const before = (await pointsOf(a)) + (await pointsOf(b))
    const [ab, ba] = await Promise.all([merge(a, b), merge(b, a)])
    expect([ab.status, ba.status].sort()).toEqual([201, 409])
    const keptId = ab.status === 201 ? a : b
    const mergedId = keptId === a ? b : a
    expect(await pointsOf(keptId)).toBe(before)
    expect(await ledgerSum(keptId)).toBe(before)
    expect(await pointsOf(mergedId)).toBe(0)
    expect(await ledgerSum(mergedId)).toBe(0)
  })

  it('an adjustment on the merged patient during the merge either lands before it and moves, or is refused', async () => {
    const kept = await addPatient()
    const merged = await addPatient()
    await withHistory(merged, 400)
    const before = (await pointsOf(kept)) + (await pointsOf(merged))
    const adjustments = Array.from({ length: 4 }, () =>
      t.request(`/api/patients/${merged}/adjustments`, {
        method: 'POST',
        token: manager.token,
        json: { points: 25, reason: 'at the desk', idempotencyKey: key() },
      }),
    )
    const [merging, ...adjusted] = await Promise.all([merge(kept, merged), ...adjustments])
    expect(merging.status).toBe(201)
    const landed = adjusted.filter((r) => r.status === 201).length
    for (const refused of adjusted.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409)
      expect(await messageOf(refused)).toBe(MERGE_MESSAGES.mergedPatient)
    }
    expect(await pointsOf(kept)).toBe(before + 25 * landed)
    expect(await ledgerSum(kept)).toBe(before + 25 * landed)
    expect(await pointsOf(merged)).toBe(0)
    expect(await ledgerSum(merged)).toBe(0)
    const stillThere = await t.db
      .select({ id: appointments.id })
      .from(appointments)
      .where(and(eq(appointments.patient_id, merged)))
    expect(stillThere).toEqual([])
  })

  it('a checkout on the merged patient during the merge either lands before it and moves, or is refused', async () => {
    const [peel] = await t.db
      .insert(procedures)
      .values({
        practice_id: t.demo.practiceId,
        name: `Merge Peel ${unique()}`,
        price: 12000,
        points: 40,
      })
      .returning({ id: procedures.id })
    if (!peel) throw new Error('no procedure')
    const kept = await addPatient()
    const merged = await addPatient()
    await withHistory(merged, 400)
    const before = (await pointsOf(kept)) + (await pointsOf(merged))
    const checkouts = Array.from({ length: 3 }, () =>
      t.request('/api/visits', {
        method: 'POST',
        token: t.demo.staffToken,
        json: {
          patient_id: merged,
          idempotencyKey: key(),
          items: [{ procedure_id: peel.id, quantity: 1 }],
        },
      }),
    )
    const [merging, ...visited] = await Promise.all([merge(kept, merged), ...checkouts])
    expect(merging.status).toBe(201)
    const landed = visited.filter((r) => r.status === 201).length
    for (const refused of visited.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409)
      expect(await messageOf(refused)).toBe(MERGE_MESSAGES.mergedPatient)
    }
    expect(await pointsOf(kept)).toBe(before + 40 * landed)
    expect(await ledgerSum(kept)).toBe(before + 40 * landed)
    expect(await pointsOf(merged)).toBe(0)
    expect(await rowsLeft(merged)).toEqual({})
  })
})
