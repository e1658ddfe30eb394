import { and, count, eq, isNull } from 'drizzle-orm'
import { SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PROGRAMME_RULES } from '#domain/ledger.ts'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { NEXTECH_SANDBOX_LOGIN } from '#domain/nextech.ts'
import { can, PERMISSION_REFUSALS, type Role } from '#domain/permissions.ts'
import { declaredAccess, type RouteAccess } from '#server/auth/permissions.ts'
import {
  auditEvents,
  membershipPlans,
  memberships,
  nextechReviews,
  nextechSyncRuns,
  patients,
  personnelInvitations,
  visits,
} from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger } from '#server/modules/ledger/service.ts'
import { TEST_TOKEN_MESSAGES } from '#server/payments/test-gateway.ts'
import { TEXAS_PRACTICE_DETAILS } from '#server/testing/api-journeys.ts'
import { apiRoutes, fillPath, PATIENT_ROUTES, PUBLIC_ROUTES } from '#server/testing/api-routes.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { useTestApp } from '#server/testing/suite.ts'
import {
  createMember,
  createPracticeFixture,
  httpBackends,
  mintToken,
  type PracticeFixture,
} from '#server/testing/test-app.ts'

/** A route of the staff's API: neither public nor the patient's wallet. */
const staffRoute = (key: string) => !PUBLIC_ROUTES.has(key) && !PATIENT_ROUTES.has(key)

/** A request at another practice's rows, and what must come back. */
type ForeignCase = {
  path: string
  body?: unknown
  /**
   * 404 for another practice's row (the answer an unknown id gets, so ids cannot be counted); or
   * a check that the answer holds only the user's own data.
   */
  expect: 404 | ((response: Response) => Promise<void>)
}

type Foreign = PracticeFixture & {
  nextechRunId: number
  nextechReviewId: number
  invitationId: string
  invitationEmail: string
  ledgerEntryId: number
  visitId: number
  /** The other practice's membership plan, its patient's membership on it, its payment account. */
  membershipPlanId: number
  membershipId: number
  paymentAccountId: string
}

// Set once the other practice exists: list answers must never hold its rows.
let foreignPracticeId = 0
/** How many unarchived patients the demo practice (the caller's own) has. */
let ownPatientTotal = -1
/** The caller's own unarchived patients counted now (cases before may have added one). */
let countOwnPatients: () => Promise<number> = async () => -1
/** A patient of the caller's own practice, not archived and not a member. */
let ownPatientId = 0
/** The practice a membership plan was saved in. */
let practiceOfPlan: (id: number) => Promise<number> = async () => -1
/** The caller's practice's active memberships, read from the database. */
let countOwnActiveMembers: () => Promise<number> = async () => -1

/** Another practice's ledger rows answer 404 like unknown ones, so their ids cannot be counted. */
const notFound = async (response: Response) => {
  expect(response.status).toBe(404)
  expect(((await response.json()) as { error: { name: string } }).error.name).toBe('NotFoundError')
}

/**
 * A one-row import refused for its missing last name: it creates nobody, so the patient counts of
 * the other cases stay as they are, and the refusal names no other practice's patient.
 */
const importBody = (_o: Foreign) => ({
  file_id: 'a'.repeat(64),
  rows: [{ row: 2, first_name: 'Ima', last_name: '' }],
})
const importRefusal = [{ row: 2, reason: 'The last name is missing.', patient_id: null }]

const DAY = '2026-06-01'
const NEXT_DAY = '2026-06-02'

/**
 * Every protected route, with a request that reaches for the other practice. A route missing here
 * (and from PUBLIC_ROUTES) fails the suite: a new route must say how it is protected.
 */
const PROTECTED: Record<string, (other: Foreign, own: { practiceId: number }) => ForeignCase> = {
  'GET /api/patients/by-practice/:id': (o) => ({
    path: `/api/patients/by-practice/${o.practiceId}`,
    expect: 404,
  }),
  'GET /api/patients/all/by-practice/:id': (o) => ({
    path: `/api/patients/all/by-practice/${o.practiceId}`,
    expect: 404,
  }),
  'GET /api/patients/all/by-practice/converted/:id': (o) => ({
    path: `/api/patients/all/by-practice/converted/${o.practiceId}`,
    expect: 404,
  }),
  'GET /api/patients/promotions/:id': (o) => ({
    path: `/api/patients/promotions/${o.patientId}`,
    expect: 404,
  }),
  'GET /api/patients/:id': (o) => ({ path: `/api/patients/${o.patientId}`, expect: 404 }),
  'PUT /api/patients/:id': (o) => ({
    path: `/api/patients/${o.patientId}`,
    body: { first_name: 'Stolen' },
    expect: 404,
  }),
  'POST /api/patients': (o, own) => ({
    path: '/api/patients',
    // A practice id in the body is not the caller's to choose: the row lands in its own practice.
    body: { first_name: 'Placed', last_name: 'Elsewhere', practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(201)
      const row = (await response.json()) as { practice_id: number }
      expect(row.practice_id).toBe(own.practiceId)
    },
  }),
  'GET /api/procedures': (o) => ({ path: `/api/procedures?practice=${o.practiceId}`, expect: 404 }),
  'GET /api/products': (o) => ({ path: `/api/products?practice=${o.practiceId}`, expect: 404 }),
  'GET /api/patients': () => ({
    path: '/api/patients?pageSize=100',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const page = (await response.json()) as { data: { id: number; practice_id: number }[] }
      expect(page.data.length).toBeGreaterThan(0)
      expect(page.data.every((row) => row.practice_id !== foreignPracticeId)).toBe(true)
    },
  }),
  'GET /api/patients/summary': () => ({
    path: '/api/patients/summary',
    // Counts of the caller's own practice only: the same as its own list's total.
    expect: async (response) => {
      expect(response.status).toBe(200)
      const summary = (await response.json()) as { patients: number }
      expect(summary.patients).toBe(ownPatientTotal)
    },
  }),
  'POST /api/patients/:id/archive': (o) => ({
    path: `/api/patients/${o.patientId}/archive`,
    expect: 404,
  }),
  'POST /api/patients/:id/restore': (o) => ({
    path: `/api/patients/${o.patientId}/restore`,
    expect: 404,
  }),
  // The review list holds the caller's own patients only; a merge reaching for another
  // practice's patient (kept or merged) answers as an unknown id does.
  'GET /api/patients/duplicates': (o) => ({
    path: '/api/patients/duplicates?pageSize=100',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const page = (await response.json()) as {
        data: { first: { id: number }; second: { id: number } }[]
      }
      const ids = page.data.flatMap((pair) => [pair.first.id, pair.second.id])
      expect(ids).not.toContain(o.patientId)
    },
  }),
  'GET /api/patients/:id/merge/:mergedId': (o) => ({
    path: `/api/patients/${o.patientId}/merge/${o.patientId + 1}`,
    expect: notFound,
  }),
  'POST /api/patients/:id/merge/:mergedId': (o) => ({
    path: `/api/patients/${o.patientId}/merge/${o.patientId + 1}`,
    body: { idempotencyKey: 'foreign-merge-1' },
    expect: notFound,
  }),
  'GET /api/patients/:id/ledger': (o) => ({
    path: `/api/patients/${o.patientId}/ledger`,
    expect: notFound,
  }),
  'POST /api/patients/:id/adjustments': (o) => ({
    path: `/api/patients/${o.patientId}/adjustments`,
    body: { points: 5, reason: 'reaching across', idempotencyKey: 'foreign-adjustment-1' },
    expect: notFound,
  }),
  'POST /api/ledger/:entryId/reverse': (o) => ({
    path: `/api/ledger/${o.ledgerEntryId}/reverse`,
    body: { reason: 'reaching across' },
    expect: notFound,
  }),
  'POST /api/procedures': (o, own) => ({
    path: '/api/procedures',
    // A practice id in the body is not the caller's to choose.
    body: { name: 'Placed elsewhere', price: 1000, practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(201)
      expect(((await response.json()) as { practice_id: number }).practice_id).toBe(own.practiceId)
    },
  }),
  'PUT /api/procedures/:id': (o) => ({
    path: `/api/procedures/${o.procedureId}`,
    body: { name: 'Stolen', price: 1 },
    expect: 404,
  }),
  'POST /api/procedures/:id/archive': (o) => ({
    path: `/api/procedures/${o.procedureId}/archive`,
    expect: 404,
  }),
  'POST /api/procedures/:id/restore': (o) => ({
    path: `/api/procedures/${o.procedureId}/restore`,
    expect: 404,
  }),
  'POST /api/products': (o, own) => ({
    path: '/api/products',
    // A practice id in the body is not the caller's to choose.
    body: { name: 'Placed elsewhere', price: 1000, practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(201)
      expect(((await response.json()) as { practice_id: number }).practice_id).toBe(own.practiceId)
    },
  }),
  'PUT /api/products/:id': (o) => ({
    path: `/api/products/${o.productId}`,
    body: { name: 'Stolen', price: 1 },
    expect: 404,
  }),
  'POST /api/products/:id/archive': (o) => ({
    path: `/api/products/${o.productId}/archive`,
    expect: 404,
  }),
  'POST /api/products/:id/restore': (o) => ({
    path: `/api/products/${o.productId}/restore`,
    expect: 404,
  }),
  'GET /api/appointments/:practiceId/:date': (o) => ({
    path: `/api/appointments/${o.practiceId}/${DAY}`,
    expect: 404,
  }),
  'DELETE /api/appointments/:id': (o) => ({
    path: `/api/appointments/${o.appointmentId}`,
    expect: 404,
  }),
  'GET /api/appointments': (o) => ({
    // The range answers the caller's own practice only, never the other's appointment.
    path: `/api/appointments?from=${DAY}&to=${NEXT_DAY}`,
    expect: async (response) => {
      expect(response.status).toBe(200)
      const rows = (await response.json()) as { id: number; practice_id: number }[]
      expect(rows.some((row) => row.id === o.appointmentId)).toBe(false)
      expect(rows.every((row) => row.practice_id !== o.practiceId)).toBe(true)
    },
  }),
  'GET /api/appointments/:id': (o) => ({
    path: `/api/appointments/${o.appointmentId}`,
    expect: 404,
  }),
  'PUT /api/appointments/:id': (o) => ({
    path: `/api/appointments/${o.appointmentId}`,
    body: { notes: 'reaching across' },
    expect: 404,
  }),
  'POST /api/appointments/:id/cancel': (o) => ({
    path: `/api/appointments/${o.appointmentId}/cancel`,
    expect: 404,
  }),
  'POST /api/appointments': (o) => ({
    // Booking another practice's patient reads as an unknown patient.
    path: '/api/appointments',
    body: { patient_id: o.patientId, starts_at: '2026-03-01T10:00:00.000Z' },
    expect: async (response) => {
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { details: unknown } }).error.details).toEqual({
        field: 'patient_id',
      })
    },
  }),
  'DELETE /api/upload/files/:id': (o) => ({ path: `/api/upload/files/${o.uploadId}`, expect: 404 }),
  // Uploads: a body that is not multipart is refused before anything is stored.
  'POST /api/upload/files': () => ({
    path: '/api/upload/files',
    body: { file: 'x', purpose: 'logo' },
    expect: async (response) => {
      expect(response.status).toBe(415)
    },
  }),
  'PUT /api/practice/logo': (o) => ({
    path: '/api/practice/logo',
    body: { upload_id: o.uploadId },
    expect: 404,
  }),
  'DELETE /api/practice/logo': () => ({
    path: '/api/practice/logo',
    // Only the caller's own practice has a logo to remove.
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ image_path: null })
    },
  }),
  'PUT /api/users/:id/avatar': (o) => ({
    path: `/api/users/${o.admin.id}/avatar`,
    body: { upload_id: o.uploadId },
    expect: 404,
  }),
  'DELETE /api/users/:id/avatar': (o) => ({ path: `/api/users/${o.admin.id}/avatar`, expect: 404 }),
  'GET /api/activities/patient/:id': (o) => ({
    path: `/api/activities/patient/${o.patientId}`,
    expect: 404,
  }),
  'PUT /api/promotions/claimed/:promo': (o) => ({
    path: `/api/promotions/claimed/${o.promotionId}`,
    body: { promo: o.promotionId, patient_id: o.patientId },
    expect: 404,
  }),
  'PUT /api/promotions/redeemed/:promo': (o) => ({
    path: `/api/promotions/redeemed/${o.promotionId}`,
    body: { promo: o.promotionId, patient_id: o.patientId },
    expect: 404,
  }),
  'GET /api/promotions': (o) => ({
    path: '/api/promotions?pageSize=100',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const page = (await response.json()) as { data: { id: number; practice_id: number }[] }
      expect(page.data.length).toBeGreaterThan(0)
      expect(
        page.data.some((row) => row.id === o.promotionId || row.practice_id === o.practiceId),
      ).toBe(false)
    },
  }),
  'POST /api/promotions': (_o, own) => ({
    path: '/api/promotions',
    body: { title: 'Placed offer' },
    expect: async (response) => {
      expect(response.status).toBe(201)
      const row = (await response.json()) as { practice_id: number }
      expect(row.practice_id).toBe(own.practiceId)
    },
  }),
  'GET /api/promotions/:id': (o) => ({ path: `/api/promotions/${o.promotionId}`, expect: 404 }),
  'GET /api/promotions/:id/claims': (o) => ({
    path: `/api/promotions/${o.promotionId}/claims`,
    expect: 404,
  }),
  'PUT /api/promotions/:id': (o) => ({
    path: `/api/promotions/${o.promotionId}`,
    body: { title: 'Stolen' },
    expect: 404,
  }),
  'DELETE /api/promotions/:id': (o) => ({ path: `/api/promotions/${o.promotionId}`, expect: 404 }),
  'POST /api/promotions/:id/publish': (o) => ({
    path: `/api/promotions/${o.promotionId}/publish`,
    expect: 404,
  }),
  'POST /api/promotions/:id/end': (o) => ({
    path: `/api/promotions/${o.promotionId}/end`,
    expect: 404,
  }),
  'POST /api/promotions/:id/duplicate': (o) => ({
    path: `/api/promotions/${o.promotionId}/duplicate`,
    expect: 404,
  }),
  'POST /api/promotions/:id/send': (o) => ({
    path: `/api/promotions/${o.promotionId}/send`,
    expect: 404,
  }),
  'POST /api/promotions/:id/archive': (o) => ({
    path: `/api/promotions/${o.promotionId}/archive`,
    expect: 404,
  }),
  'GET /api/users': (o) => ({
    path: '/api/users',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const rows = (await response.json()) as { id: number; practice_id: number }[]
      expect(rows.length).toBeGreaterThan(0)
      expect(rows.some((row) => row.id === o.admin.id || row.practice_id === o.practiceId)).toBe(
        false,
      )
    },
  }),
  'GET /api/users/:id': (o) => ({ path: `/api/users/${o.admin.id}`, expect: 404 }),
  // Self-service
  'PUT /api/users/:id': (o) => ({
    path: `/api/users/${o.admin.id}`,
    body: { title: '', first_name: 'Mallory', last_name: 'Other' },
    expect: 404,
  }),
  'PUT /api/users/:id/role': (o) => ({
    path: `/api/users/${o.admin.id}/role`,
    body: { access_rights: 'Staff' },
    expect: 404,
  }),
  'POST /api/users/:id/deactivate': (o) => ({
    path: `/api/users/${o.admin.id}/deactivate`,
    body: {},
    expect: 404,
  }),
  'POST /api/users/:id/reactivate': (o) => ({
    path: `/api/users/${o.admin.id}/reactivate`,
    body: {},
    expect: 404,
  }),
  // My Profile's phone change: only the own id; another practice's member is unknown.
  'POST /api/users/:id/phone/code': (o) => ({
    path: `/api/users/${o.admin.id}/phone/code`,
    body: { phone: '2125550188', countryCode: '+1' },
    expect: 404,
  }),
  'POST /api/users/:id/phone/verify': (o) => ({
    path: `/api/users/${o.admin.id}/phone/verify`,
    body: { authyId: 'a'.repeat(43), phone: '2125550188', code: '123456' },
    expect: 404,
  }),
  'PUT /api/users/:id/phone': (o) => ({
    path: `/api/users/${o.admin.id}/phone`,
    body: { cell_phone: '2125550188', country_code: '+1', authyId: 'a'.repeat(43) },
    expect: 404,
  }),
  'POST /api/auth/change-password': () => ({
    path: '/api/auth/change-password',
    body: {
      current_password: 'Not-The-Password-1',
      password: 'Copper-Meadow-77',
      passwordConfirmation: 'Copper-Meadow-77',
    },
    // Acts on the caller only: a wrong current password is refused and changes nothing.
    expect: async (response) => expect(response.status).toBe(400),
  }),
  'POST /api/auth/logout': () => ({
    path: '/api/auth/logout',
    body: {},
    // Acts on the caller only; checked with its own token in the suite below.
    expect: async (response) => expect(response.status).toBe(200),
  }),
  'GET /api/personnel': (o) => ({
    path: '/api/personnel',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const rows = (await response.json()) as { email: string }[]
      expect(rows.some((row) => row.email === o.invitationEmail)).toBe(false)
    },
  }),
  'POST /api/personnel': (o, own) => ({
    path: '/api/personnel',
    body: {
      email: `placed-${randomToken(4).toLowerCase()}@example.com`,
      first_name: 'Placed',
      last_name: 'Person',
      position: 'Staff',
      practice_id: o.practiceId,
    },
    expect: async (response) => {
      expect(response.status).toBe(201)
      const body = (await response.json()) as { id: string }
      expect(body.id).toBeTruthy()
      void own
    },
  }),
  'POST /api/personnel/:id/resend': (o) => ({
    path: `/api/personnel/${o.invitationId}/resend`,
    expect: 404,
  }),
  'DELETE /api/personnel/:id': (o) => ({ path: `/api/personnel/${o.invitationId}`, expect: 404 }),
  'GET /api/practice/rules': (o) => ({
    path: '/api/practice/rules',
    // The caller's own practice's rules; no id to reach across with.
    expect: async (response) => {
      expect(response.status).toBe(200)
      void o
    },
  }),
  'PUT /api/practice/rules': (o) => ({
    path: '/api/practice/rules',
    body: { ...DEFAULT_PROGRAMME_RULES, practice_id: o.practiceId },
    // Changes the caller's own practice only, whatever the body says.
    expect: async (response) => expect(response.status).toBe(200),
  }),
  // The Nextech connection: the caller's own practice's, with no id to reach across with (the
  // other practice's practice ID, had it one, never shows).
  'GET /api/practice/integrations/nextech': (o) => ({
    path: '/api/practice/integrations/nextech',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { chosen: boolean; practice_id: string | null }
      expect(body).toMatchObject({ chosen: false, practice_id: null })
      void o
    },
  }),
  'POST /api/practice/integrations/nextech/test': (o) => ({
    path: '/api/practice/integrations/nextech/test',
    body: { practice_id: o.practiceId },
    // Tests the caller's own practice, which does not use Nextech, whatever the body says.
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(((await response.json()) as { ok: boolean }).ok).toBe(false)
    },
  }),
  // The rest of the Nextech integration acts on the caller's own practice (which does not use
  // Nextech): another practice's ids, runs, review items and codes are not reachable.
  'PUT /api/practice/integrations/nextech': (o) => ({
    path: '/api/practice/integrations/nextech',
    body: { ...NEXTECH_SANDBOX_LOGIN, practice_id: o.practiceId },
    // The caller's own practice did not choose Nextech: nothing is stored, whatever the body says.
    expect: async (response) => expect(response.status).toBe(409),
  }),
  'DELETE /api/practice/integrations/nextech': () => ({
    path: '/api/practice/integrations/nextech',
    expect: async (response) => expect(response.status).toBe(200),
  }),
  'POST /api/practice/integrations/nextech/sync': (o) => ({
    path: '/api/practice/integrations/nextech/sync',
    body: { practice_id: o.practiceId },
    // Syncs the caller's own practice only, which is not connected.
    expect: async (response) => expect(response.status).toBe(409),
  }),
  'GET /api/practice/integrations/nextech/runs/:id': (o) => ({
    path: `/api/practice/integrations/nextech/runs/${o.nextechRunId}`,
    expect: 404,
  }),
  'GET /api/practice/integrations/nextech/review': () => ({
    path: '/api/practice/integrations/nextech/review',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ items: [] })
    },
  }),
  'POST /api/practice/integrations/nextech/review/:id': (o) => ({
    path: `/api/practice/integrations/nextech/review/${o.nextechReviewId}`,
    body: { action: 'ignore' },
    expect: 404,
  }),
  'GET /api/practice/integrations/nextech/unmapped': () => ({
    path: '/api/practice/integrations/nextech/unmapped',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ codes: [] })
    },
  }),
  'POST /api/practice/integrations/nextech/backfill': (o) => ({
    path: '/api/practice/integrations/nextech/backfill',
    body: { since: '2026-01-01', preview: true, practice_id: o.practiceId },
    // The caller's own practice, never connected: nothing to backfill, whatever the body says.
    expect: async (response) => expect(response.status).toBe(409),
  }),
  'PUT /api/practice/integrations/nextech/unmapped/:code': (o) => ({
    path: '/api/practice/integrations/nextech/unmapped/OTHER',
    body: { catalogue_item_id: o.procedureId, kind: 'procedure' },
    expect: 404,
  }),
  // The practice's details in Settings: the caller's own practice, whatever the body says.
  'GET /api/practice': (o, own) => ({
    path: '/api/practice',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { id: number }
      expect(body.id).toBe(own.practiceId)
      expect(body.id).not.toBe(o.practiceId)
    },
  }),
  'PUT /api/practice': (o, own) => ({
    path: '/api/practice',
    body: {
      id: o.practiceId,
      practice_id: o.practiceId,
      ...TEXAS_PRACTICE_DETAILS,
      practice_name: 'Glow Demo Clinic',
      office_name: '',
      url: 'glowdemo.example.com',
      practice_email: 'front@glowdemo.example.com',
    },
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(((await response.json()) as { id: number }).id).toBe(own.practiceId)
    },
  }),
  // The subscription: the caller's own practice only. The demo practice has one on the
  // test gateway, the other practice none: an answer about the other would say `none`.
  'GET /api/practice/subscription': (o) => ({
    path: '/api/practice/subscription',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { status: string; card: { last4: string } }
      expect(body).toMatchObject({ status: 'active', card: { last4: '4242' } })
      void o
    },
  }),
  'POST /api/practice/subscription/cancel': (o) => ({
    path: '/api/practice/subscription/cancel',
    body: { practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ cancel_at_period_end: true })
    },
  }),
  'POST /api/practice/subscription/resume': (o) => ({
    path: '/api/practice/subscription/resume',
    body: { practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ cancel_at_period_end: false })
    },
  }),
  // An unknown token is refused by the gateway for the caller's own customer.
  'PUT /api/practice/subscription/card': (o) => ({
    path: '/api/practice/subscription/card',
    body: { token: 'tok_other', practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        error: { message: TEST_TOKEN_MESSAGES.unknownToken },
      })
    },
  }),
  'GET /api/users-permissions/init': () => ({
    path: '/api/users-permissions/init',
    expect: async (response) => expect(response.status).toBe(200),
  }),
  // The front desk and the exports.
  'POST /api/visits/preview': (o) => ({
    path: '/api/visits/preview',
    body: { patient_id: o.patientId, items: [{ procedure_id: o.procedureId, quantity: 1 }] },
    expect: 404,
  }),
  'POST /api/visits/approval': (o) => ({
    path: '/api/visits/approval',
    body: {
      patient_id: o.patientId,
      items: [{ procedure_id: o.procedureId, quantity: 1, price_cents: 99_999 }],
      reason: 'Authorisation check',
    },
    expect: 404,
  }),
  'POST /api/visits': (o) => ({
    path: '/api/visits',
    body: {
      patient_id: o.patientId,
      items: [{ procedure_id: o.procedureId, quantity: 1 }],
      idempotencyKey: `authz-visit-${randomToken(6)}`,
    },
    expect: 404,
  }),
  'GET /api/visits/:id': (o) => ({ path: `/api/visits/${o.visitId}`, expect: 404 }),
  'POST /api/visits/:id/undo': (o) => ({
    path: `/api/visits/${o.visitId}/undo`,
    body: {},
    expect: 404,
  }),
  'POST /api/patients/:id/redemption-code': (o) => ({
    path: `/api/patients/${o.patientId}/redemption-code`,
    body: { points: 100 },
    expect: 404,
  }),
  'POST /api/patients/:id/redemption-code/check': (o) => ({
    path: `/api/patients/${o.patientId}/redemption-code/check`,
    body: { authyId: 'rc-0123456789', code: '123456', points: 100 },
    expect: 404,
  }),
  'POST /api/patients/:id/redemptions': (o) => ({
    path: `/api/patients/${o.patientId}/redemptions`,
    body: { points: 1, idempotencyKey: `authz-redeem-${randomToken(6)}` },
    expect: 404,
  }),
  // The import works in the caller's own practice only.
  'POST /api/patients/import/preview': (o) => ({
    path: '/api/patients/import/preview',
    body: importBody(o),
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        ready: 0,
        points: 0,
        rejected: importRefusal,
        already_imported: [],
      })
    },
  }),
  'POST /api/patients/import': (o) => ({
    path: '/api/patients/import',
    body: importBody(o),
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        created: 0,
        skipped: 1,
        points_posted: 0,
        rejected: importRefusal,
        already_imported: [],
      })
    },
  }),
  'GET /api/reports/patients.csv': () => ({
    path: '/api/reports/patients.csv',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.text()).not.toContain('Private')
    },
  }),
  'GET /api/reports/ledger.csv': () => ({
    path: '/api/reports/ledger.csv',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.text()).not.toContain('Private')
    },
  }),
  // The dashboard's aggregates count the caller's practice only: never the other's patient.
  'GET /api/reports/summary': () => ({
    path: '/api/reports/summary',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { tiles: { patients: { current: number } } }
      expect(body.tiles.patients.current).toBe(await countOwnPatients())
    },
  }),
  'GET /api/reports/worklist': () => ({
    path: '/api/reports/worklist?list=lapsing&pageSize=100',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(JSON.stringify(await response.json())).not.toContain('Private')
    },
  }),
  'GET /api/reports/liability': () => ({
    path: '/api/reports/liability',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ period: { from: expect.any(String) } })
    },
  }),
  'GET /api/reports/liability.csv': () => ({
    path: '/api/reports/liability.csv',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('Closing balance')
    },
  }),
  // The activity log names patients by reading them: never another practice's.
  'GET /api/audit': (o) => ({
    path: `/api/audit?actor=${o.admin.id}`,
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ data: [], total: 0 })
    },
  }),
  'GET /api/audit/export.csv': () => ({
    path: '/api/audit/export.csv',
    expect: async (response) => {
      expect(response.status).toBe(200)
      expect(await response.text()).not.toContain('Private')
    },
  }),
  // Memberships: another practice's plans, members and payment account answer as unknown ones do;
  // lists and new rows are the caller's own practice's.
  'GET /api/membership-plans': (o) => ({
    path: '/api/membership-plans',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const page = (await response.json()) as { data: { id: number }[] }
      expect(page.data.some((plan) => plan.id === o.membershipPlanId)).toBe(false)
    },
  }),
  'POST /api/membership-plans': (o, own) => ({
    path: '/api/membership-plans',
    // A practice id in the body is not the caller's to choose.
    body: { ...PLAN, name: 'Placed elsewhere', practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(201)
      const plan = (await response.json()) as { id: number }
      expect(await practiceOfPlan(plan.id)).toBe(own.practiceId)
    },
  }),
  'GET /api/membership-plans/:id': (o) => ({
    path: `/api/membership-plans/${o.membershipPlanId}`,
    expect: notFound,
  }),
  'PUT /api/membership-plans/:id': (o) => ({
    path: `/api/membership-plans/${o.membershipPlanId}`,
    body: { ...PLAN, name: 'Stolen', price_cents: 100 },
    expect: notFound,
  }),
  'POST /api/membership-plans/:id/archive': (o) => ({
    path: `/api/membership-plans/${o.membershipPlanId}/archive`,
    expect: notFound,
  }),
  // Enrolling the caller's own patient in another practice's plan reads as an unknown plan.
  'POST /api/patients/:id/memberships': (o) => ({
    path: `/api/patients/${ownPatientId}/memberships`,
    body: {
      plan_id: o.membershipPlanId,
      payment_method_token: 'tok_reaching_across',
      consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Ima Own' },
      idempotencyKey: `authz-enrol-${randomToken(6)}`,
    },
    expect: notFound,
  }),
  'GET /api/patients/:id/memberships': (o) => ({
    path: `/api/patients/${o.patientId}/memberships`,
    expect: notFound,
  }),
  'GET /api/memberships': (o) => ({
    path: '/api/memberships',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const page = (await response.json()) as { data: { id: number; patient_id: number }[] }
      expect(
        page.data.some((row) => row.id === o.membershipId || row.patient_id === o.patientId),
      ).toBe(false)
    },
  }),
  'GET /api/memberships/:id': (o) => ({
    path: `/api/memberships/${o.membershipId}`,
    expect: notFound,
  }),
  'GET /api/memberships/:id/events': (o) => ({
    path: `/api/memberships/${o.membershipId}/events`,
    expect: notFound,
  }),
  'GET /api/memberships/:id/bank': (o) => ({
    path: `/api/memberships/${o.membershipId}/bank`,
    expect: notFound,
  }),
  // The memberships report counts the caller's practice only: never the other's member.
  'GET /api/reports/memberships': () => ({
    path: '/api/reports/memberships',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { active: number }
      expect(body.active).toBe(await countOwnActiveMembers())
    },
  }),
  'GET /api/reports/memberships.csv': () => ({
    path: '/api/reports/memberships.csv',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const active = (await response.text())
        .split('\n')
        .map((line) => line.trim())
        .find((line) => line.startsWith('active,'))
      expect(active, 'the CSV has a line for active members').toBeDefined()
      expect(active?.endsWith(`,${await countOwnActiveMembers()}`)).toBe(true)
    },
  }),
  'POST /api/memberships/:id/pause': (o) => ({
    path: `/api/memberships/${o.membershipId}/pause`,
    body: { cycles: 1 },
    expect: notFound,
  }),
  'POST /api/memberships/:id/resume': (o) => ({
    path: `/api/memberships/${o.membershipId}/resume`,
    expect: notFound,
  }),
  // At the end of the term: any staff role may ask, so each role reaches the lookup.
  'POST /api/memberships/:id/cancel': (o) => ({
    path: `/api/memberships/${o.membershipId}/cancel`,
    body: { at: 'period_end' },
    expect: notFound,
  }),
  'POST /api/memberships/:id/undo-cancel': (o) => ({
    path: `/api/memberships/${o.membershipId}/undo-cancel`,
    expect: notFound,
  }),
  'POST /api/memberships/:id/change-plan': (o) => ({
    path: `/api/memberships/${o.membershipId}/change-plan`,
    body: { plan_id: o.membershipPlanId, at: 'period_end' },
    expect: notFound,
  }),
  'POST /api/memberships/:id/retry-payment': (o) => ({
    path: `/api/memberships/${o.membershipId}/retry-payment`,
    expect: notFound,
  }),
  'PUT /api/memberships/:id/card': (o) => ({
    path: `/api/memberships/${o.membershipId}/card`,
    body: { payment_method_token: 'tok_reaching_across' },
    expect: notFound,
  }),
  // The payment account: the caller's own practice's, never the other's account.
  'GET /api/practice/payments': (o) => ({
    path: '/api/practice/payments',
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { account_id: string | null }
      expect(body.account_id).not.toBe(o.paymentAccountId)
    },
  }),
  'POST /api/practice/payments/connect': (o) => ({
    path: '/api/practice/payments/connect',
    body: { practice_id: o.practiceId },
    expect: async (response) => {
      expect(response.status).toBe(200)
      const body = (await response.json()) as { connected: boolean; account_id: string | null }
      expect(body.connected).toBe(true)
      expect(body.account_id).not.toBe(o.paymentAccountId)
    },
  }),
}

describe.each(httpBackends())('authorisation of every route on $name', (backend) => {
  const t = useTestApp(backend)
  let other: Foreign

  beforeAll(async () => {
    const fixture = await createPracticeFixture(t.db, {
      startsAt: new Date(`${DAY}T10:00:00Z`),
    })
    const invitationEmail = `other-invite-${randomToken(4).toLowerCase()}@other.example`
    const invitationId = randomToken(32)
    await t.db.insert(personnelInvitations).values({
      id: invitationId,
      practice_id: fixture.practiceId,
      invited_by: fixture.admin.id,
      email: invitationEmail,
      first_name: 'Other',
      last_name: 'Invitee',
      position: 'Staff',
      expires_at: new Date(Date.now() + 86_400_000),
    })
    const { entry } = await createLedger({ db: t.db, now: () => new Date() }).credit({
      practiceId: fixture.practiceId,
      patientId: fixture.patientId,
      userId: fixture.admin.id,
      kind: 'earn',
      points: 100,
      sourceType: 'visit',
    })
    const [visit] = await t.db
      .insert(visits)
      .values({
        practice_id: fixture.practiceId,
        patient_id: fixture.patientId,
        total_cents: 0,
        idempotency_key: `authz-${randomToken(6)}`,
      })
      .returning({ id: visits.id })
    if (!visit) throw new Error('no visit')
    const [run] = await t.db
      .insert(nextechSyncRuns)
      .values({ practice_id: fixture.practiceId, trigger: 'manual', started_at: new Date() })
      .returning({ id: nextechSyncRuns.id })
    const [review] = await t.db
      .insert(nextechReviews)
      .values({
        practice_id: fixture.practiceId,
        kind: 'patient',
        subject: '1',
        message: 'Private review',
      })
      .returning({ id: nextechReviews.id })
    if (!run || !review) throw new Error('no Nextech rows')
    // The other practice's payments connected, a plan built and its patient enrolled, by its admin.
    const otherToken = await mintToken(fixture.admin)
    const connected = await t.request('/api/practice/payments/connect', {
      method: 'POST',
      token: otherToken,
    })
    expect(connected.status).toBe(200)
    const { account_id: paymentAccountId } = (await connected.json()) as { account_id: string }
    const planned = await t.request('/api/membership-plans', {
      method: 'POST',
      token: otherToken,
      json: PLAN,
    })
    expect(planned.status).toBe(201)
    const { id: membershipPlanId } = (await planned.json()) as { id: number }
    const enrolled = await t.request(`/api/patients/${fixture.patientId}/memberships`, {
      method: 'POST',
      token: otherToken,
      json: {
        plan_id: membershipPlanId,
        payment_method_token: cardToken(t, CARDS.ok),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Peter Other' },
        idempotencyKey: `authz-other-${randomToken(6)}`,
      },
    })
    expect(enrolled.status).toBe(201)
    const { id: membershipId } = (await enrolled.json()) as { id: number }
    other = {
      ...fixture,
      nextechRunId: run.id,
      nextechReviewId: review.id,
      invitationId,
      invitationEmail,
      ledgerEntryId: entry.id,
      visitId: visit.id,
      membershipPlanId,
      membershipId,
      paymentAccountId,
    }
    foreignPracticeId = fixture.practiceId
    const [own] = await t.db
      .select({ n: count() })
      .from(patients)
      .where(and(eq(patients.practice_id, t.demo.practiceId), isNull(patients.archived_at)))
    ownPatientTotal = Number(own?.n ?? -1)
    const [ownPatient] = await t.db
      .select({ id: patients.id })
      .from(patients)
      .where(and(eq(patients.practice_id, t.demo.practiceId), isNull(patients.archived_at)))
      .limit(1)
    ownPatientId = ownPatient?.id ?? 0
    practiceOfPlan = async (id) => {
      const [plan] = await t.db
        .select({ practice_id: membershipPlans.practice_id })
        .from(membershipPlans)
        .where(eq(membershipPlans.id, id))
      return plan?.practice_id ?? -1
    }
    countOwnActiveMembers = async () => {
      const [now] = await t.db
        .select({ n: count() })
        .from(memberships)
        .where(
          and(eq(memberships.practice_id, t.demo.practiceId), eq(memberships.status, 'active')),
        )
      return Number(now?.n ?? -1)
    }
    countOwnPatients = async () => {
      const [now] = await t.db
        .select({ n: count() })
        .from(patients)
        .where(and(eq(patients.practice_id, t.demo.practiceId), isNull(patients.archived_at)))
      return Number(now?.n ?? -1)
    }
  })

  it('classifies every route of the app as public or protected', () => {
    const routes = apiRoutes(t.app).map((route) => route.key)
    expect(routes.length).toBeGreaterThan(35)
    const unclassified = routes.filter(
      (key) => !PUBLIC_ROUTES.has(key) && !PATIENT_ROUTES.has(key) && !(key in PROTECTED),
    )
    expect(unclassified, 'routes that are neither public nor in the protected table').toEqual([])
    const stale = [...PUBLIC_ROUTES, ...PATIENT_ROUTES, ...Object.keys(PROTECTED)].filter(
      (key) => !routes.includes(key),
    )
    expect(stale, 'table entries for routes the app does not have').toEqual([])
  })

  async function badTokens(): Promise<Record<string, string | null>> {
    const good = await mintToken(t.demo.admin)
    const [header, payload, signature] = good.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >
    const forged = Buffer.from(JSON.stringify({ ...claims, pid: other.practiceId })).toString(
      'base64url',
    )
    return {
      missing: null,
      malformed: 'not-a-jwt',
      expired: await mintToken(t.demo.admin, { now: new Date(Date.now() - 9 * 3_600_000) }),
      tampered: `${header}.${forged}.${signature}`,
      'foreign secret': await mintToken(t.demo.admin, {
        secret: 'another-secret-that-is-long-enough-for-hs256-xyz',
      }),
      'alg none': `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`,
      'other issuer': await new SignJWT({ pid: t.demo.practiceId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(t.demo.admin.id))
        .setIssuer('someone-else')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('test-secret-that-is-long-enough-for-hs256-0123456789')),
    }
  }

  it('refuses missing, malformed, expired, tampered and foreign tokens on every protected route with 401', async () => {
    const tokens = await badTokens()
    const protectedRoutes = apiRoutes(t.app).filter((route) => !PUBLIC_ROUTES.has(route.key))
    expect(protectedRoutes.length).toBeGreaterThan(20)
    const answers: string[] = []
    for (const route of protectedRoutes) {
      // The wallet's routes refuse every staff token, good or bad, and every bad token: 401 here.
      const target = PATIENT_ROUTES.has(route.key)
        ? { path: fillPath(route.path, () => '1'), body: route.method === 'GET' ? undefined : {} }
        : PROTECTED[route.key]?.(other, { practiceId: t.demo.practiceId })
      if (!target) throw new Error(`unclassified route ${route.key}`)
      for (const [kind, token] of Object.entries(tokens)) {
        const response = await t.request(target.path, {
          method: route.method,
          ...(token ? { token } : {}),
          ...(target.body !== undefined ? { json: target.body } : {}),
        })
        const body = (await response.json()) as { error?: { status: number; name: string } }
        answers.push(`${route.key} ${kind} → ${response.status} ${body.error?.name ?? ''}`)
      }
    }
    const wrong = answers.filter((line) => !line.endsWith('→ 401 UnauthorizedError'))
    expect(wrong).toEqual([])
    expect(answers.length).toBe(protectedRoutes.length * Object.keys(tokens).length)
  })

  it("answers another practice's rows with 404 and keeps lists and new rows to the user's practice", async () => {
    const results: string[] = []
    for (const route of apiRoutes(t.app).filter((r) => staffRoute(r.key))) {
      const make = PROTECTED[route.key]
      if (!make) throw new Error(`unclassified route ${route.key}`)
      const target = make(other, { practiceId: t.demo.practiceId })
      // A fresh token each time: the logout case ends the sessions made before it.
      const token = await mintToken(t.demo.admin)
      const response = await t.request(target.path, {
        method: route.method,
        token,
        ...(target.body !== undefined ? { json: target.body } : {}),
      })
      if (target.expect === 404) {
        results.push(`${route.key} → ${response.status}`)
        expect(response.status, route.key).toBe(404)
        expect(((await response.json()) as { error: { name: string } }).error.name).toBe(
          'NotFoundError',
        )
      } else {
        await target.expect(response)
      }
    }
    expect(results.length).toBeGreaterThanOrEqual(15)
    // Nothing of the other practice changed.
    const [patient] = await t.db.select().from(patients).where(eq(patients.id, other.patientId))
    expect(patient?.first_name).toBe('Peter')
    const [invitation] = await t.db
      .select()
      .from(personnelInvitations)
      .where(eq(personnelInvitations.id, other.invitationId))
    expect(invitation?.status).toBe('pending')
    const [membership] = await t.db
      .select()
      .from(memberships)
      .where(eq(memberships.id, other.membershipId))
    expect(membership).toMatchObject({ status: 'active', cancel_at: null, paused_cycles: 0 })
    const [plan] = await t.db
      .select()
      .from(membershipPlans)
      .where(eq(membershipPlans.id, other.membershipPlanId))
    expect(plan).toMatchObject({ name: PLAN.name, archived_at: null, current_version: 1 })
  })

  /** What each route's handlers declare it needs (server/auth/permissions.ts), by route key. */
  function declarations(): Map<string, RouteAccess[]> {
    const found = new Map<string, RouteAccess[]>()
    for (const route of t.app.routes) {
      const access = declaredAccess(route.handler)
      if (!access) continue
      const key = `${route.method} ${route.path}`
      found.set(key, [...(found.get(key) ?? []), access])
    }
    return found
  }

  it('has every protected route declare what it needs, once, and no public route', () => {
    const declared = declarations()
    const routes = apiRoutes(t.app)
    const undeclared = routes
      .filter((route) => staffRoute(route.key))
      .filter((route) => (declared.get(route.key) ?? []).length !== 1)
      .map((route) => `${route.key}: ${JSON.stringify(declared.get(route.key) ?? [])}`)
    expect(undeclared, 'protected routes without exactly one permission declaration').toEqual([])
    const publicDeclared = routes.filter((r) => PUBLIC_ROUTES.has(r.key) && declared.has(r.key))
    expect(publicDeclared.map((r) => r.key)).toEqual([])
  })

  it.each<Role>(['Staff', 'Manager', 'Admin'])(
    'refuses a %s what the matrix withholds, on every route, with the sentence naming it, and audits it',
    async (role) => {
      const { user: member } = await createMember(t.db, t.demo.practiceId, role)
      const declared = declarations()
      const refused: string[] = []
      const allowed: string[] = []
      for (const route of apiRoutes(t.app).filter((r) => staffRoute(r.key))) {
        const [access] = declared.get(route.key) ?? []
        const target = PROTECTED[route.key]?.(other, { practiceId: t.demo.practiceId })
        if (!access || !target) throw new Error(`undeclared or unclassified route ${route.key}`)
        // A fresh token each time: the logout route ends the sessions made before it.
        const response = await t.request(target.path, {
          method: route.method,
          token: await mintToken(member),
          ...(target.body !== undefined ? { json: target.body } : {}),
        })
        // The CSV exports answer text/csv when allowed; refusals are JSON like every error.
        const body = (
          (response.headers.get('Content-Type') ?? '').includes('json') ? await response.json() : {}
        ) as { error?: { message: string } }
        if (access !== 'staff' && !can(role, access)) {
          expect({
            route: route.key,
            status: response.status,
            message: body.error?.message,
          }).toEqual({ route: route.key, status: 403, message: PERMISSION_REFUSALS[access] })
          refused.push(route.key)
        } else {
          expect(response.status, route.key).not.toBe(403)
          allowed.push(route.key)
        }
      }
      const audited = await t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(
          and(eq(auditEvents.user_id, member.id), eq(auditEvents.action, 'permission.refused')),
        )
      expect(audited.map((row) => `${(row.details as { route: string }).route}`).sort()).toEqual(
        [...refused].sort(),
      )
      // The matrix in words: Staff is refused the manager's and admin's routes, a Manager the
      // admin's only, an Admin nothing.
      if (role === 'Admin') expect(refused).toEqual([])
      else expect(refused.length).toBeGreaterThan(role === 'Staff' ? 5 : 2)
      expect(allowed.length).toBeGreaterThan(15)
    },
  )

  it("refuses a staff token, any role's, on every route of the patient's wallet", async () => {
    const answers: string[] = []
    for (const route of apiRoutes(t.app).filter((r) => PATIENT_ROUTES.has(r.key))) {
      for (const token of [t.demo.adminToken, t.demo.staffToken]) {
        const response = await t.request(
          fillPath(route.path, () => '1'),
          {
            method: route.method,
            token,
            ...(route.method === 'GET' ? {} : { json: {} }),
          },
        )
        answers.push(`${route.key} → ${response.status}`)
      }
    }
    expect(answers.length).toBe(PATIENT_ROUTES.size * 2)
    expect(answers.filter((line) => !line.endsWith('→ 403'))).toEqual([])
  })

  it('answers the public routes without a session (never 401)', async () => {
    const statuses: string[] = []
    for (const route of apiRoutes(t.app).filter((r) => PUBLIC_ROUTES.has(r.key))) {
      const path = route.path.replace(/:(\w+)/g, 'x')
      const response = await t.request(path, {
        method: route.method,
        ...(route.method === 'GET' ? {} : { json: {} }),
      })
      statuses.push(`${route.key} → ${response.status}`)
      expect(response.status, route.key).not.toBe(401)
      expect(response.status, route.key).toBeLessThan(500)
    }
    expect(statuses.length).toBe(PUBLIC_ROUTES.size)
  })
})
