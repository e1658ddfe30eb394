import { and, eq } from 'drizzle-orm'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import { APPOINTMENT_MESSAGES, AppointmentDetailSchema } from '#domain/appointments.ts'
import { appointments, auditEvents, patients, procedures } from '#server/db/schema.ts'
import { usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

const Details = v.array(AppointmentDetailSchema)

describe.each(httpBackends())('appointments API on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  let patientId: number
  let procedureId: number
  beforeAll(async () => {
    const [patient] = await t.db
      .select({ id: patients.id })
      .from(patients)
      .where(eq(patients.practice_id, t.demo.practiceId))
      .limit(1)
    const [procedure] = await t.db
      .select({ id: procedures.id })
      .from(procedures)
      .where(eq(procedures.practice_id, t.demo.practiceId))
      .limit(1)
    patientId = patient?.id ?? 0
    procedureId = procedure?.id ?? 0
  })

  const send = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
    t.request(path, { token: t.demo.staffToken, ...init })
  const message = async (response: Response) =>
    ((await response.json()) as { error: { message: string } }).error.message
  /** Books an appointment at the desk (201) and answers it. */
  const book = async (json: Record<string, unknown>) => {
    const response = await send('/api/appointments', { method: 'POST', json })
    expect(response.status).toBe(201)
    return v.parse(AppointmentDetailSchema, await response.json())
  }
  /** The details of the audit events of `action` about the appointment `id`. */
  const audited = async (action: string, id: number) =>
    (await t.db.select().from(auditEvents).where(eq(auditEvents.action, action)))
      .map((event) => event.details as Record<string, unknown>)
      .filter((details) => details.appointment_id === id)

  it('books an appointment at the desk and answers it with the patient and procedure', async () => {
    const booked = await book({
      patient_id: patientId,
      procedure_id: procedureId,
      starts_at: '2026-12-01T15:30:00.000Z',
      notes: '  Prefers the left room  ',
    })
    expect(booked).toMatchObject({
      patient_id: patientId,
      procedure_id: procedureId,
      starts_at: '2026-12-01T15:30:00.000Z',
      notes: 'Prefers the left room',
      status: 'scheduled',
    })
    expect(booked.patient.id).toBe(patientId)
    expect(booked.procedure?.id).toBe(procedureId)
    expect(await audited('appointment.created', booked.id)).toEqual([
      { appointment_id: booked.id, patient_id: patientId },
    ])
  })

  it('lists a range of days with each patient and procedure, earliest first', async () => {
    await send('/api/appointments', {
      method: 'POST',
      json: { patient_id: patientId, starts_at: '2026-12-03T09:00:00.000Z' },
    })
    const response = await send('/api/appointments?from=2026-12-01&to=2026-12-08')
    expect(response.status).toBe(200)
    const rows = v.parse(Details, await response.json())
    expect(rows.map((r) => r.starts_at)).toEqual([
      '2026-12-01T15:30:00.000Z',
      '2026-12-03T09:00:00.000Z',
    ])
    expect(rows[1]?.procedure).toBeNull()
    expect(rows.every((r) => r.practice_id === t.demo.practiceId)).toBe(true)
    // The day after `to` is not in the range: `to` is exclusive.
    const one = v.parse(
      Details,
      await (await send('/api/appointments?from=2026-12-01&to=2026-12-02')).json(),
    )
    expect(one).toHaveLength(1)
  })

  it('refuses a range that is empty, too long or not made of dates', async () => {
    for (const query of ['from=2026-12-08&to=2026-12-01', 'from=2026-01-01&to=2026-03-01']) {
      const response = await send(`/api/appointments?${query}`)
      expect(response.status).toBe(400)
      expect(await message(response)).toBe(APPOINTMENT_MESSAGES.range)
    }
    expect((await send('/api/appointments?from=2026-02-30&to=2026-03-02')).status).toBe(400)
    expect((await send('/api/appointments?from=yesterday&to=2026-03-02')).status).toBe(400)
  })

  it('refuses to book an archived patient, an archived procedure or another practice’s', async () => {
    const [archived] = await t.db
      .insert(patients)
      .values({
        practice_id: t.demo.practiceId,
        first_name: 'Old',
        last_name: 'Archived',
        unsubscribe_id: `appt-archived-${backend.name}`,
        archived_at: new Date(),
      })
      .returning({ id: patients.id })
    const cases: [unknown, string, string][] = [
      [{ patient_id: archived?.id }, 'patient_id', APPOINTMENT_MESSAGES.patientArchived],
      [{ patient_id: other.patientId }, 'patient_id', APPOINTMENT_MESSAGES.patientNotFound],
      [
        { patient_id: patientId, procedure_id: other.procedureId },
        'procedure_id',
        APPOINTMENT_MESSAGES.procedureNotFound,
      ],
    ]
    for (const [fields, field, text] of cases) {
      const response = await send('/api/appointments', {
        method: 'POST',
        json: { ...(fields as object), starts_at: '2026-12-05T10:00:00.000Z' },
      })
      expect(response.status).toBe(400)
      const body = (await response.json()) as { error: { message: string; details: unknown } }
      expect(body.error).toMatchObject({ message: text, details: { field } })
    }
    const bad = await send('/api/appointments', {
      method: 'POST',
      json: { patient_id: patientId, starts_at: 'next Tuesday' },
    })
    expect(bad.status).toBe(400)
    expect(await message(bad)).toBe(`starts_at: ${APPOINTMENT_MESSAGES.startsAt}`)
  })

  it('reschedules and cancels; a cancelled or completed appointment cannot be changed', async () => {
    const booked = await book({ patient_id: patientId, starts_at: '2026-12-10T10:00:00.000Z' })
    const moved = await send(`/api/appointments/${booked.id}`, {
      method: 'PUT',
      json: { starts_at: '2026-12-11T14:00:00.000Z', notes: 'Moved by phone' },
    })
    expect(moved.status).toBe(200)
    expect(v.parse(AppointmentDetailSchema, await moved.json())).toMatchObject({
      starts_at: '2026-12-11T14:00:00.000Z',
      notes: 'Moved by phone',
    })
    const cancelled = await send(`/api/appointments/${booked.id}/cancel`, { method: 'POST' })
    expect(v.parse(AppointmentDetailSchema, await cancelled.json()).status).toBe('cancelled')
    const again = await send(`/api/appointments/${booked.id}`, {
      method: 'PUT',
      json: { notes: 'too late' },
    })
    expect(again.status).toBe(409)
    expect(await message(again)).toBe(APPOINTMENT_MESSAGES.notScheduled)
    // A cancelled appointment can still be deleted; a completed one cannot.
    expect((await send(`/api/appointments/${booked.id}`, { method: 'DELETE' })).status).toBe(200)
    expect((await send(`/api/appointments/${booked.id}`)).status).toBe(404)
    // Each change is on record once; the refused change is not.
    const recorded = { appointment_id: booked.id, patient_id: patientId }
    for (const action of ['updated', 'cancelled', 'deleted']) {
      expect(await audited(`appointment.${action}`, booked.id)).toEqual([recorded])
    }
    const [completed] = await t.db
      .select({ id: appointments.id })
      .from(appointments)
      .where(
        and(eq(appointments.practice_id, t.demo.practiceId), eq(appointments.status, 'completed')),
      )
      .limit(1)
    const cancel = await send(`/api/appointments/${completed?.id}/cancel`, { method: 'POST' })
    expect(cancel.status).toBe(409)
    expect(await message(cancel)).toBe(APPOINTMENT_MESSAGES.notScheduled)
  })

  it('answers 404 for another practice’s appointment and 401 without a session', async () => {
    expect((await send(`/api/appointments/${other.appointmentId}`)).status).toBe(404)
    expect((await t.request('/api/appointments?from=2026-12-01&to=2026-12-02', {})).status).toBe(
      401,
    )
  })
})
