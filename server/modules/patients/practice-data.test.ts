import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import { APPOINTMENT_MESSAGES } from '#domain/appointments.ts'
import {
  ActivitySchema,
  AppointmentSchema,
  PatientPromotionSchema,
  ProcedureSchema,
  ProductSchema,
  StaffMemberSchema,
} from '#domain/practice-data.ts'
import { PROMOTION_MESSAGES } from '#domain/promotions.ts'
import {
  activities,
  appointments,
  patientPromotions,
  patients,
  promotions,
  uploads,
} from '#server/db/schema.ts'
import { DEMO_ADMIN, DEMO_MANAGER, DEMO_STAFF } from '#server/demo/seed.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

const day = (date: Date) => date.toISOString().slice(0, 10)

describe.each(testBackends())('practice data API on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)

  const get = (path: string) => t.request(path, { token: t.demo.adminToken })
  const del = (path: string) => t.request(path, { method: 'DELETE', token: t.demo.adminToken })

  describe('procedures and products', () => {
    for (const [resource, schema] of [
      ['procedures', ProcedureSchema],
      ['products', ProductSchema],
    ] as const) {
      it(`lists the practice's ${resource}`, async () => {
        const response = await get(`/api/${resource}?practice=${t.demo.practiceId}`)
        expect(response.status).toBe(200)
        const list = v.parse(v.array(schema), await response.json())
        expect(list.length).toBeGreaterThanOrEqual(3)
        expect(list.every((row) => row.practice_id === t.demo.practiceId)).toBe(true)
      })

      it(`answers 404 for another practice's ${resource}, 401 without a session`, async () => {
        expect((await get(`/api/${resource}?practice=${other.practiceId}`)).status).toBe(404)
        expect((await t.request(`/api/${resource}?practice=${t.demo.practiceId}`)).status).toBe(401)
      })
    }
  })

  describe('appointments', () => {
    /** An appointment of the practice in `status`. */
    const appointmentIn = async (status: 'completed' | 'scheduled') => {
      const [row] = await t.db
        .select()
        .from(appointments)
        .where(
          and(eq(appointments.practice_id, t.demo.practiceId), eq(appointments.status, status)),
        )
        .limit(1)
      if (!row) throw new Error(`no ${status} appointment`)
      return row
    }
    const stored = (id: number) => t.db.select().from(appointments).where(eq(appointments.id, id))

    it("lists a day's appointments of the practice, earliest first", async () => {
      const today = day(new Date())
      const response = await get(`/api/appointments/${t.demo.practiceId}/${today}`)
      expect(response.status).toBe(200)
      const list = v.parse(v.array(AppointmentSchema), await response.json())
      expect(list.length).toBeGreaterThanOrEqual(3)
      for (const appointment of list) {
        expect(appointment.practice_id).toBe(t.demo.practiceId)
        expect(appointment.starts_at.slice(0, 10)).toBe(today)
      }
      const starts = list.map((a) => a.starts_at)
      expect([...starts].sort()).toEqual(starts)
      const empty = await get(`/api/appointments/${t.demo.practiceId}/1999-01-01`)
      expect(await empty.json()).toEqual([])
    })

    it('answers 400 for a date that is not YYYY-MM-DD, 404 for another practice', async () => {
      for (const date of ['today', '2026-13-01', '2026-1-1', '20260101']) {
        expect((await get(`/api/appointments/${t.demo.practiceId}/${date}`)).status).toBe(400)
      }
      expect((await get(`/api/appointments/${other.practiceId}/${day(new Date())}`)).status).toBe(
        404,
      )
    })

    it('refuses to delete a completed appointment: its visit is reversed instead', async () => {
      const row = await appointmentIn('completed')
      const response = await del(`/api/appointments/${row.id}`)
      expect(response.status).toBe(409)
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
        APPOINTMENT_MESSAGES.completedNoDelete,
      )
      expect(await stored(row.id)).toHaveLength(1)
    })

    it('deletes an appointment of the practice and answers it', async () => {
      const row = await appointmentIn('scheduled')
      const response = await del(`/api/appointments/${row.id}`)
      expect(response.status).toBe(200)
      expect(v.parse(AppointmentSchema, await response.json()).id).toBe(row.id)
      expect(await stored(row.id)).toEqual([])
      expect((await del(`/api/appointments/${row.id}`)).status).toBe(404)
    })

    it("refuses to delete another practice's appointment", async () => {
      expect((await del(`/api/appointments/${other.appointmentId}`)).status).toBe(404)
      expect(await stored(other.appointmentId)).toHaveLength(1)
    })
  })

  describe('uploads', () => {
    const stored = (id: number) => t.db.select().from(uploads).where(eq(uploads.id, id))

    it('deletes a file row and the stored file', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'glow-uploads-'))
      try {
        writeFileSync(join(folder, 'logo-1.png'), 'png')
        const [row] = await t.db
          .insert(uploads)
          .values({
            practice_id: t.demo.practiceId,
            name: 'logo.png',
            mime: 'image/png',
            size: 3,
            storage_key: 'logo-1.png',
          })
          .returning()
        const app = t.makeApp({ uploadsDir: folder })
        const response = await app.request(`/api/upload/files/${row?.id}`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${t.demo.adminToken}` },
        })
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({
          id: row?.id,
          name: 'logo.png',
          mime: 'image/png',
          size: 3,
        })
        expect(existsSync(join(folder, 'logo-1.png'))).toBe(false)
        expect(await stored(row?.id ?? 0)).toEqual([])
      } finally {
        rmSync(folder, { recursive: true, force: true })
      }
    })

    it("refuses another practice's file and answers 404 for none", async () => {
      expect((await del(`/api/upload/files/${other.uploadId}`)).status).toBe(404)
      expect(await stored(other.uploadId)).toHaveLength(1)
      expect((await del('/api/upload/files/2147483647')).status).toBe(404)
    })
  })

  describe('activities', () => {
    it("lists a patient's activity, newest first", async () => {
      const [avery] = await t.db.select().from(patients).where(eq(patients.first_name, 'Avery'))
      const response = await get(`/api/activities/patient/${avery?.id}`)
      expect(response.status).toBe(200)
      const list = v.parse(v.array(ActivitySchema), await response.json())
      expect(list.length).toBeGreaterThanOrEqual(2)
      expect(list.every((a) => a.patient_id === avery?.id)).toBe(true)
      const times = list.map((a) => a.created_at)
      expect([...times].sort().reverse()).toEqual(times)
    })

    it("answers 404 for another practice's patient", async () => {
      expect((await get(`/api/activities/patient/${other.patientId}`)).status).toBe(404)
    })
  })

  describe('promotions', () => {
    let patientId: number
    let promotionId: number
    let points: number
    beforeAll(async () => {
      const [patient] = await t.db
        .insert(patients)
        .values({
          practice_id: t.demo.practiceId,
          first_name: 'Claire',
          last_name: 'Claims',
          unsubscribe_id: `claims-${backend.name}-${Date.now()}`,
          points: 10,
        })
        .returning()
      const [promotion] = await t.db
        .insert(promotions)
        .values({
          practice_id: t.demo.practiceId,
          title: 'Spring Glow',
          points: 250,
          published_at: new Date(Date.now() - 60_000),
        })
        .returning()
      patientId = patient?.id ?? 0
      promotionId = promotion?.id ?? 0
      points = patient?.points ?? 0
    })

    /**
     * Claims or redeems the promotion `promo` of the path (by default this patient's, for this
     * patient). Redeeming needs the patient's code (the seed's threshold is 0) or, here, an admin's
     * override.
     */
    const put = (
      action: 'claimed' | 'redeemed',
      body: object = { promo: promotionId, patient_id: patientId },
      promo = promotionId,
    ) =>
      t.request(`/api/promotions/${action}/${promo}`, {
        method: 'PUT',
        token: action === 'claimed' ? t.demo.staffToken : t.demo.adminToken,
        json: action === 'claimed' ? body : { ...body, override: { reason: 'Desk check' } },
      })
    const pointsNow = async () =>
      (await t.db.select().from(patients).where(eq(patients.id, patientId)))[0]?.points

    it('refuses to redeem before a claim', async () => {
      const response = await put('redeemed')
      expect(response.status).toBe(409)
      const body = (await response.json()) as { error: { message: string } }
      expect(body.error.message).toBe(PROMOTION_MESSAGES.notClaimed)
    })

    it('claims a promotion for a patient (and again, harmlessly)', async () => {
      for (let i = 0; i < 2; i++) {
        const response = await put('claimed', {
          promo: String(promotionId),
          patient_id: patientId,
        })
        expect(response.status).toBe(200)
        const claim = v.parse(PatientPromotionSchema, await response.json())
        expect(claim).toMatchObject({
          patient_id: patientId,
          promotion_id: promotionId,
          status: 'claimed',
          redeemed_at: null,
          promotion: { title: 'Spring Glow' },
        })
      }
      const logged = await t.db
        .select()
        .from(activities)
        .where(and(eq(activities.patient_id, patientId), eq(activities.kind, 'promotion_claimed')))
      expect(logged).toHaveLength(1)
    })

    it('redeems it once, adding its points and an activity', async () => {
      const response = await put('redeemed')
      expect(response.status).toBe(200)
      const redemption = v.parse(PatientPromotionSchema, await response.json())
      expect(redemption.status).toBe('redeemed')
      expect(redemption.redeemed_at).not.toBeNull()
      expect(await pointsNow()).toBe(points + 250)
      const again = await put('redeemed')
      expect(again.status).toBe(200)
      expect(v.parse(PatientPromotionSchema, await again.json()).status).toBe('redeemed')
      expect((await put('claimed')).status).toBe(409)
      expect(await pointsNow()).toBe(points + 250)
      const [row] = await t.db
        .select()
        .from(patientPromotions)
        .where(eq(patientPromotions.patient_id, patientId))
      expect(row?.status).toBe('redeemed')
    })

    it('answers 400 when the body promo differs from the path, or patient_id is missing', async () => {
      for (const body of [
        { promo: promotionId + 1, patient_id: patientId },
        { promo: promotionId },
        { promo: 'abc', patient_id: patientId },
      ]) {
        expect((await put('claimed', body)).status, JSON.stringify(body)).toBe(400)
      }
    })

    it("answers 404 for another practice's promotion or patient", async () => {
      const foreignPromotion = { promo: other.promotionId, patient_id: patientId }
      expect((await put('claimed', foreignPromotion, other.promotionId)).status).toBe(404)
      const foreignPatient = { promo: promotionId, patient_id: other.patientId }
      expect((await put('claimed', foreignPatient)).status).toBe(404)
      const untouched = await t.db
        .select()
        .from(patientPromotions)
        .where(eq(patientPromotions.patient_id, other.patientId))
      expect(untouched).toEqual([])
    })

    it('answers 401 without a session', async () => {
      const response = await t.request(`/api/promotions/claimed/${promotionId}`, {
        method: 'PUT',
        json: { promo: promotionId, patient_id: patientId },
      })
      expect(response.status).toBe(401)
    })
  })

  describe('users', () => {
    it("lists the practice's staff without password hashes", async () => {
      const response = await get('/api/users')
      expect(response.status).toBe(200)
      const body = await response.json()
      const list = v.parse(v.array(StaffMemberSchema), body)
      expect(list.map((u) => u.email).sort()).toEqual(
        [DEMO_ADMIN.email, DEMO_MANAGER.email, DEMO_STAFF.email].sort(),
      )
      expect(JSON.stringify(body)).not.toMatch(/password|argon2/)
    })

    it('reads one member; 404 for another practice, as for none', async () => {
      const response = await get(`/api/users/${t.demo.staff.id}`)
      expect(response.status).toBe(200)
      expect(v.parse(StaffMemberSchema, await response.json())).toMatchObject({
        email: DEMO_STAFF.email,
        access_rights: 'Staff',
      })
      expect((await get(`/api/users/${other.admin.id}`)).status).toBe(404)
      expect((await get('/api/users/2147483647')).status).toBe(404)
    })

    it('lets the other practice see only its own people', async () => {
      const response = await t.request('/api/users', { token: other.token })
      const list = v.parse(v.array(StaffMemberSchema), await response.json())
      expect(list.map((u) => u.id)).toEqual([other.admin.id])
    })
  })
})
