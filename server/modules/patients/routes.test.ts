import { eq, sql } from 'drizzle-orm'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import {
  DUPLICATE_PATIENT_MESSAGES,
  PATIENT_PHONE_MESSAGE,
  PATIENT_POINTS_READ_ONLY,
  PatientPageSchema,
  PatientPromotionSchema,
  PatientSchema,
} from '#domain/practice-data.ts'
import { auditEvents, patients } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'
import { rowsOf } from './queries.ts'

const PatientListSchema = v.array(PatientSchema)

describe.each(testBackends())('patients API on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)

  const get = (path: string, token = t.demo.adminToken) => t.request(path, { token })

  describe('lists', () => {
    it('lists every patient of the practice by name (all/by-practice)', async () => {
      const response = await get(`/api/patients/all/by-practice/${t.demo.practiceId}`)
      expect(response.status).toBe(200)
      const list = v.parse(PatientListSchema, await response.json())
      expect(list.length).toBeGreaterThanOrEqual(6)
      expect(list.every((p) => p.practice_id === t.demo.practiceId)).toBe(true)
      const names = list.map((p) => `${p.last_name} ${p.first_name}`)
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')))
      expect(list.some((p) => p.id === other.patientId)).toBe(false)
    })

    it('pages by-practice with limit and offset', async () => {
      const all = v.parse(
        PatientListSchema,
        await (await get(`/api/patients/all/by-practice/${t.demo.practiceId}`)).json(),
      )
      const page = v.parse(
        PatientListSchema,
        await (await get(`/api/patients/by-practice/${t.demo.practiceId}?limit=2&offset=1`)).json(),
      )
      expect(page.map((p) => p.id)).toEqual(all.slice(1, 3).map((p) => p.id))
      const first = await get(`/api/patients/by-practice/${t.demo.practiceId}`)
      expect(v.parse(PatientListSchema, await first.json()).length).toBe(Math.min(all.length, 50))
      expect((await get(`/api/patients/by-practice/${t.demo.practiceId}?limit=0`)).status).toBe(400)
      expect((await get(`/api/patients/by-practice/${t.demo.practiceId}?limit=x`)).status).toBe(400)
    })

    it('answers the whole list a page at a time, with a Link to the next page', async () => {
      const base = `/api/patients/all/by-practice/${t.demo.practiceId}`
      const all = v.parse(PatientListSchema, await (await get(base)).json())
      expect(all.length).toBeLessThanOrEqual(500)
      const first = await get(`${base}?limit=2`)
      expect(v.parse(PatientListSchema, await first.json()).map((p) => p.id)).toEqual(
        all.slice(0, 2).map((p) => p.id),
      )
      const link = first.headers.get('link')
      expect(link).toBe(`<${base}?limit=2&offset=2>; rel="next"`)
      const next = link?.slice(1, link.indexOf('>')) ?? ''
      expect(v.parse(PatientListSchema, await (await get(next)).json()).map((p) => p.id)).toEqual(
        all.slice(2, 4).map((p) => p.id),
      )
      const last = await get(`${base}?limit=2&offset=${all.length - 1}`)
      expect(v.parse(PatientListSchema, await last.json())).toHaveLength(1)
      expect(last.headers.get('link')).toBeNull()
      expect((await get(`${base}?limit=501`)).status).toBe(400)
    })

    it('counts the practice patients in the database (summary)', async () => {
      const response = await get('/api/patients/summary', t.demo.staffToken)
      expect(response.status).toBe(200)
      const summary = (await response.json()) as Record<string, number>
      const rows = (await t.db.select().from(patients)).filter(
        (r) => r.practice_id === t.demo.practiceId && r.archived_at === null,
      )
      expect(summary).toEqual({
        patients: rows.length,
        subscribed: rows.filter((r) => r.email_subscription).length,
        converted: rows.filter((r) => r.converted).length,
      })
    })

    it('lists only converted patients on all/by-practice/converted', async () => {
      const response = await get(`/api/patients/all/by-practice/converted/${t.demo.practiceId}`)
      expect(response.status).toBe(200)
      const list = v.parse(PatientListSchema, await response.json())
      expect(list.length).toBeGreaterThan(0)
      expect(list.every((p) => p.converted)).toBe(true)
      const rows = await t.db.select().from(patients).where(eq(patients.converted, true))
      expect(list.length).toBe(rows.filter((r) => r.practice_id === t.demo.practiceId).length)
    })

    it("answers 404 for another practice's lists and 401 without a session", async () => {
      for (const path of [
        `/api/patients/by-practice/${other.practiceId}`,
        `/api/patients/all/by-practice/${other.practiceId}`,
        `/api/patients/all/by-practice/converted/${other.practiceId}`,
      ]) {
        const response = await get(path)
        expect(response.status).toBe(404)
        expect(await response.json()).toMatchObject({
          error: { status: 404, name: 'NotFoundError', message: 'Practice not found.' },
        })
        expect((await t.request(path)).status).toBe(401)
      }
    })
  })

  describe('one patient', () => {
    it('reads one patient of the practice', async () => {
      const [row] = await t.db
        .select()
        .from(patients)
        .where(eq(patients.practice_id, t.demo.practiceId))
        .limit(1)
      const response = await get(`/api/patients/${row?.id}`)
      expect(response.status).toBe(200)
      const body = await response.json()
      expect(v.parse(PatientSchema, body)).toMatchObject({ id: row?.id, email: row?.email })
      // The unsubscribe token is the patient's, not the staff's.
      expect(body).not.toHaveProperty('unsubscribe_id')
    })

    it("answers another practice's patient exactly as none (404), 401 without a session", async () => {
      // A 403 here would tell which ids exist in other practices.
      const foreign = await get(`/api/patients/${other.patientId}`)
      const none = await get('/api/patients/2147483647')
      expect(foreign.status).toBe(404)
      expect(none.status).toBe(404)
      expect(await foreign.json()).toEqual(await none.json())
      expect((await t.request(`/api/patients/${other.patientId}`)).status).toBe(401)
    })

    it('creates a patient in the user’s own practice with a fresh unsubscribe id', async () => {
      const response = await t.request('/api/patients', {
        method: 'POST',
        token: t.demo.staffToken,
        json: {
          first_name: ' Grace ',
          last_name: 'Hopper',
          email: 'grace@example.com',
          phone: '+15550001111',
          practice_id: other.practiceId,
        },
      })
      expect(response.status).toBe(201)
      const body = await response.json()
      const patient = v.parse(PatientSchema, body)
      expect(patient).toMatchObject({
        first_name: 'Grace',
        last_name: 'Hopper',
        practice_id: t.demo.practiceId,
        email_subscription: true,
        converted: false,
        points: 0,
      })
      // The unsubscribe token is made and stored, and stays out of the answer.
      expect(body).not.toHaveProperty('unsubscribe_id')
      const [stored] = await t.db.select().from(patients).where(eq(patients.id, patient.id))
      expect(stored?.practice_id).toBe(t.demo.practiceId)
      expect(stored?.unsubscribe_id).toMatch(/^[\w-]{43}$/)
    })

    it('updates the given fields only', async () => {
      const created = v.parse(
        PatientSchema,
        await (
          await t.request('/api/patients', {
            method: 'POST',
            token: t.demo.adminToken,
            json: { first_name: 'Ada', last_name: 'Lovelace' },
          })
        ).json(),
      )
      const response = await t.request(`/api/patients/${created.id}`, {
        method: 'PUT',
        token: t.demo.adminToken,
        json: { converted: true, unsubscribe_id: 'attacker-chosen' },
      })
      expect(response.status).toBe(200)
      const updated = v.parse(PatientSchema, await response.json())
      expect(updated).toMatchObject({ first_name: 'Ada', converted: true, points: 0 })
      const [token] = await t.db
        .select({ unsubscribe_id: patients.unsubscribe_id })
        .from(patients)
        .where(eq(patients.id, created.id))
      expect(token?.unsubscribe_id).not.toBe('attacker-chosen')
      // The balance is the ledger's: a body cannot set it, in either direction.
      for (const points of [120, -5]) {
        const bad = await t.request(`/api/patients/${created.id}`, {
          method: 'PUT',
          token: t.demo.adminToken,
          json: { points },
        })
        expect(bad.status).toBe(400)
        const body = (await bad.json()) as { error: { message: string } }
        expect(body.error.message).toBe(`points: ${PATIENT_POINTS_READ_ONLY}`)
      }
      const [stored] = await t.db.select().from(patients).where(eq(patients.id, created.id))
      expect(stored?.points).toBe(0)
    })

    it("refuses to update another practice's patient", async () => {
      const response = await t.request(`/api/patients/${other.patientId}`, {
        method: 'PUT',
        token: t.demo.adminToken,
        json: { first_name: 'Hacked' },
      })
      expect(response.status).toBe(404)
      const [row] = await t.db.select().from(patients).where(eq(patients.id, other.patientId))
      expect(row?.first_name).toBe('Peter')
    })
  })

  describe('unsubscribe by link (no session)', () => {
    const unsubscribe = (token: string | number, json: object = { email_subscription: false }) =>
      t.request(`/api/patients/unsubscribe/${token}`, { method: 'PUT', json })

    it('turns off e-mail for that patient only', async () => {
      const before = await t.db.select().from(patients).orderBy(patients.id)
      const target = before.find((p) => p.practice_id === t.demo.practiceId && p.email_subscription)
      if (!target) throw new Error('no subscribed patient')
      const response = await unsubscribe(target.unsubscribe_id)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ email_subscription: false })
      const after = await t.db.select().from(patients).orderBy(patients.id)
      for (const row of after) {
        const was = before.find((p) => p.id === row.id)
        expect(row.email_subscription).toBe(row.id === target.id ? false : was?.email_subscription)
      }
    })

    /** A subscribed patient of the other practice, with its own unsubscribe token. */
    async function subscribedPatient() {
      const [row] = await t.db
        .insert(patients)
        .values({
          practice_id: other.practiceId,
          first_name: 'Sue',
          last_name: 'Scribed',
          unsubscribe_id: randomToken(),
        })
        .returning({ id: patients.id, unsubscribe_id: patients.unsubscribe_id })
      if (!row) throw new Error('patient not created')
      return row
    }

    it('answers an unknown link exactly as a real one; 404 only for a token of the wrong shape', async () => {
      // The answer must not tell which links exist.
      const patient = await subscribedPatient()
      const real = await unsubscribe(patient.unsubscribe_id)
      const unknown = await unsubscribe(randomToken())
      expect([real.status, unknown.status]).toEqual([200, 200])
      const [stored] = await t.db.select().from(patients).where(eq(patients.id, patient.id))
      expect(stored?.email_subscription).toBe(false)
      expect(await unknown.text()).toBe(await real.text())
      expect(unknown.headers.get('Content-Type')).toBe(real.headers.get('Content-Type'))
      // A token no link can have (its shape is public) is refused, and tells nothing.
      const malformed = await unsubscribe('not-a-link')
      expect(malformed.status).toBe(404)
      expect(await malformed.json()).toMatchObject({
        error: {
          status: 404,
          name: 'NotFoundError',
          message: 'This unsubscribe link is not valid.',
        },
      })
    })

    it('answers 400 for anything but email_subscription:false', async () => {
      const patient = await subscribedPatient()
      const resubscribe = await unsubscribe(patient.unsubscribe_id, { email_subscription: true })
      expect(resubscribe.status).toBe(400)
      const [row] = await t.db.select().from(patients).where(eq(patients.id, patient.id))
      expect(row?.email_subscription).toBe(true)
    })

    it('never accepts a row number instead of the token', async () => {
      expect((await unsubscribe(other.patientId)).status).toBe(404)
    })
  })

  describe("a patient's promotions", () => {
    it('lists them with the promotion inside', async () => {
      const [claimant] = await t.db
        .select()
        .from(patients)
        .where(eq(patients.last_name, "O'Connor"))
      const response = await get(`/api/patients/promotions/${claimant?.id}`)
      expect(response.status).toBe(200)
      const list = v.parse(v.array(PatientPromotionSchema), await response.json())
      expect(list).toHaveLength(1)
      expect(list[0]).toMatchObject({ status: 'claimed', promotion: { title: 'Birthday Glow' } })
    })

    it("answers 404 for another practice's patient", async () => {
      expect((await get(`/api/patients/promotions/${other.patientId}`)).status).toBe(404)
    })
  })
})

describe.each(testBackends())('patient management on $name', (backend) => {
  const t = useTestApp(backend)

  const add = (json: object, token = t.demo.adminToken) =>
    t.request('/api/patients', { method: 'POST', token, json })
  /** A patient added as `json` says (201), as answered. */
  const added = async (json: object) => {
    const response = await add(json)
    expect(response.status).toBe(201)
    return v.parse(PatientSchema, await response.json())
  }
  const page = async (query: string, token = t.demo.staffToken) => {
    const response = await t.request(`/api/patients?${query}`, { token })
    expect(response.status).toBe(200)
    return v.parse(PatientPageSchema, await response.json())
  }
  /**
   * The audit events of `action` on the patient, each with the transaction that wrote it
   * (PostgreSQL's `xmin`): rows written by one transaction carry the same one.
   */
  const eventsOf = async (action: string, patientId: number) =>
    rowsOf<{ tx: string }>(
      await t.db.execute(
        sql`select xmin::text as tx from audit_events where action = ${action} and (details->>'patient_id')::int = ${patientId}`,
      ),
    ).map((row) => row.tx)
  /** The transaction that last wrote the patient's row. */
  const patientWrittenBy = async (id: number) =>
    rowsOf<{ tx: string }>(
      await t.db.execute(sql`select xmin::text as tx from patients where id = ${id}`),
    )[0]?.tx

  it('finds a patient by the starts of words of the name, the e-mail or the phone, in any order', async () => {
    const created = await added({
      first_name: 'Quinn',
      last_name: 'Zephyr-Ambrose',
      email: 'quinn.zephyr@example.com',
      phone: '(555) 987-6543',
    })
    expect(created.phone).toBe('+15559876543')
    // The phone is stored in E.164; a search written the usual ways still finds it.
    const ids = async (search: string) =>
      (await page(`search=${encodeURIComponent(search)}`)).data.map((p) => p.id)
    for (const search of [
      'zeph',
      'Quinn Z',
      'zephyr quinn',
      'Zeph Qui',
      'ambr',
      'zephyr-amb',
      'QUINN.ZEPHYR@',
      'quinn example',
      '555-987',
      '(555) 987 65',
      '5559876543',
      '+1 555 987 6543',
      'Quinn 555 987',
    ]) {
      expect(await ids(search), search).toContain(created.id)
    }
    // Inside a word is not the start of one; every word must match; wildcards are literal.
    for (const search of ['uinn', 'ephyr', 'quinn smith', '987-65', '876543', '%']) {
      expect(await ids(search), search).not.toContain(created.id)
    }
    // Letters with digits are a name, not a phone: the digits alone do not match the number.
    for (const search of ['Archived5559876543', 'abc 555-987']) {
      expect(await ids(search), search).not.toContain(created.id)
    }
  })

  it('finds a phone stored with its country code by its ten digits, and the other way round', async () => {
    const withCode = await added({
      first_name: 'Ines',
      last_name: 'Okafor',
      email: 'ines.okafor@example.com',
    })
    // Phones stored in E.164 and ten digits as stored before it, side by side.
    await t.db.update(patients).set({ phone: '+14085556821' }).where(eq(patients.id, withCode.id))
    const tenDigits = await added({
      first_name: 'Ivo',
      last_name: 'Okafor',
      phone: '(510) 555-0190',
    })
    const ids = async (search: string) =>
      (await page(`search=${encodeURIComponent(search)}`)).data.map((p) => p.id)
    for (const search of ['408-555', '(408) 555 68', '+1 408 555 6821', '14085556821', '+1408']) {
      expect(await ids(search), search).toContain(withCode.id)
    }
    for (const search of ['510-555', '+1 (510) 555-0190', '1 510 555']) {
      expect(await ids(search), search).toContain(tenDigits.id)
    }
    expect(await ids('085')).not.toContain(withCode.id)
  })

  it('pages on the server with a total, and sorts', async () => {
    const first = await page('pageSize=2&page=1&sort=name')
    const second = await page('pageSize=2&page=2&sort=name')
    expect(first.total).toBeGreaterThan(3)
    expect(first.data).toHaveLength(2)
    expect(second.data[0]?.id).not.toBe(first.data[0]?.id)
    const byPoints = await page('pageSize=100&sort=-points')
    const points = byPoints.data.map((p) => p.points)
    expect(points).toEqual([...points].sort((a, b) => b - a))
    const bad = await t.request('/api/patients?pageSize=500', { token: t.demo.adminToken })
    expect(bad.status).toBe(400)
  })

  it('refuses a duplicate e-mail or phone with the existing patient', async () => {
    const original = await added({
      first_name: 'Dee',
      last_name: 'Dupe',
      email: 'dee@example.com',
      phone: '5551112222',
    })
    const sameEmail = await add({
      first_name: 'Other',
      last_name: 'Person',
      email: 'DEE@example.com',
    })
    expect(sameEmail.status).toBe(409)
    expect(await sameEmail.json()).toMatchObject({
      error: {
        message: DUPLICATE_PATIENT_MESSAGES.email,
        details: { patient_id: original.id, field: 'email' },
      },
    })
    const samePhone = await add({ first_name: 'Other', last_name: 'Person', phone: '555 111 2222' })
    expect(samePhone.status).toBe(409)
    expect(await samePhone.json()).toMatchObject({
      error: { message: DUPLICATE_PATIENT_MESSAGES.phone, details: { patient_id: original.id } },
    })
    // Saving a patient with its own e-mail is not a duplicate of itself.
    const self = await t.request(`/api/patients/${original.id}`, {
      method: 'PUT',
      token: t.demo.adminToken,
      json: { email: 'dee@example.com', first_name: 'Deirdre' },
    })
    expect(self.status).toBe(200)
  })

  it('stores a phone in E.164 and refuses the same number written another way, naming the patient', async () => {
    const original = await added({
      first_name: 'Marilyn',
      last_name: 'Anderson',
      phone: '(408) 555-4743',
    })
    expect(original.phone).toBe('+14085554743')
    const [stored] = await t.db
      .select({ phone: patients.phone })
      .from(patients)
      .where(eq(patients.id, original.id))
    expect(stored?.phone).toBe('+14085554743')

    for (const phone of ['+1 408 555 4743', '408.555.4743', '1-408-555-4743']) {
      const again = await add({ first_name: 'Marilyn', last_name: 'Anderson', phone })
      expect(again.status, phone).toBe(409)
      expect(await again.json()).toMatchObject({
        error: {
          message: DUPLICATE_PATIENT_MESSAGES.phone,
          details: { patient_id: original.id, field: 'phone' },
        },
      })
    }

    // An edit stores E.164 too, and may not take another patient's number in another writing.
    const other = await added({ first_name: 'Mara', last_name: 'Other', phone: '408 555 0199' })
    expect(other.phone).toBe('+14085550199')
    const edit = (json: object) =>
      t.request(`/api/patients/${other.id}`, { method: 'PUT', token: t.demo.adminToken, json })
    const taken = await edit({ phone: '+1 (408) 555-4743' })
    expect(taken.status).toBe(409)
    expect(await taken.json()).toMatchObject({
      error: { message: DUPLICATE_PATIENT_MESSAGES.phone, details: { patient_id: original.id } },
    })
    const changed = await edit({ phone: '408-555-0200' })
    expect(changed.status).toBe(200)
    expect(v.parse(PatientSchema, await changed.json()).phone).toBe('+14085550200')

    // Seven digits have no area code: refused with a sentence, nothing stored.
    for (const phone of ['555-4743', '12', '408 555 4743 ext 2']) {
      const refused = await add({ first_name: 'No', last_name: 'Area', phone })
      expect(refused.status, phone).toBe(400)
      expect(await refused.json()).toMatchObject({
        error: { message: `phone: ${PATIENT_PHONE_MESSAGE}` },
      })
    }
  })

  it('archives and restores (manager or admin), and the archive lists archived patients', async () => {
    const patient = await added({ first_name: 'Ari', last_name: 'Archive' })
    const refused = await t.request(`/api/patients/${patient.id}/archive`, {
      method: 'POST',
      token: t.demo.staffToken,
    })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      PERMISSION_REFUSALS['patients.archive'],
    )
    const archived = await t.request(`/api/patients/${patient.id}/archive`, {
      method: 'POST',
      token: t.demo.adminToken,
    })
    expect(v.parse(PatientSchema, await archived.json()).archived).toBe(true)
    expect((await page('pageSize=100')).data.map((p) => p.id)).not.toContain(patient.id)
    expect((await page('pageSize=100&archived=true')).data.map((p) => p.id)).toContain(patient.id)
    await t.request(`/api/patients/${patient.id}/restore`, {
      method: 'POST',
      token: t.demo.adminToken,
    })
    expect((await page('pageSize=100')).data.map((p) => p.id)).toContain(patient.id)
    const events = await t.db
      .select({ action: auditEvents.action, details: auditEvents.details })
      .from(auditEvents)
      .where(eq(auditEvents.user_id, t.demo.admin.id))
    const mine = events.filter(
      (e) => (e.details as { patient_id?: number }).patient_id === patient.id,
    )
    expect(mine.map((e) => e.action)).toEqual(
      expect.arrayContaining(['patient.created', 'patient.archived', 'patient.restored']),
    )
    expect(JSON.stringify(mine)).not.toContain('Archive')
  })

  it('writes each change of a patient and its audit event in one transaction, once; a refused or empty change records nothing', async () => {
    const patient = await added({ first_name: 'Tess', last_name: 'Together' })
    const createdBy = await eventsOf('patient.created', patient.id)
    expect(createdBy).toEqual([await patientWrittenBy(patient.id)])

    const change = async (
      action: 'patient.archived' | 'patient.restored' | 'patient.updated',
      request: Promise<Response>,
    ) => {
      const response = await request
      expect(response.status, action).toBe(200)
      const events = await eventsOf(action, patient.id)
      // Exactly one event, written by the transaction that changed the patient.
      expect(events, action).toEqual([await patientWrittenBy(patient.id)])
      expect(events, action).not.toEqual(createdBy)
    }
    const post = (path: string) =>
      t.request(`/api/patients/${patient.id}/${path}`, { method: 'POST', token: t.demo.adminToken })
    const put = (json: object) =>
      t.request(`/api/patients/${patient.id}`, { method: 'PUT', token: t.demo.adminToken, json })
    await change('patient.archived', post('archive'))
    await change('patient.restored', post('restore'))
    await change('patient.updated', put({ converted: true }))

    // Another patient's e-mail is refused: nothing changes, nothing more is recorded.
    const rival = await added({
      first_name: 'Rita',
      last_name: 'Rival',
      email: `rita-${Date.now()}@example.com`,
    })
    const before = await patientWrittenBy(patient.id)
    expect((await put({ email: rival.email })).status).toBe(409)
    // An empty change answers the patient and records nothing either.
    expect((await put({})).status).toBe(200)
    expect(await patientWrittenBy(patient.id)).toBe(before)
    expect(await eventsOf('patient.updated', patient.id)).toHaveLength(1)

    // Reading the record is on record once per reading.
    const read = await t.request(`/api/patients/${patient.id}`, { token: t.demo.staffToken })
    expect(read.status).toBe(200)
    expect(await eventsOf('patient.viewed', patient.id)).toHaveLength(1)
  })
})
