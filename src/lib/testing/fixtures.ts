import type { StaffMember } from '#domain/practice-data.ts'
import type { PromotionDetail } from '#domain/promotions.ts'
import { demoSession } from '#tests/support/demo-session.ts'

/** The signed-in demo Admin as `GET /users/{id}` answers it (the user of `demoSession`). */
export const demoStaffMember: StaffMember = {
  id: demoSession.user.id,
  practice_id: 1,
  email: demoSession.user.email,
  title: null,
  first_name: 'Demo',
  last_name: 'Admin',
  position: 'Provider',
  access_rights: 'Admin',
  image_path: null,
  deactivated_at: null,
  last_sign_in_at: '2026-06-01T09:00:00.000Z',
}

/**
 * A live offer without value, limits or claims, as `GET /promotions/{id}` answers it; tests
 * override what they are about.
 */
export function promotionDetail(overrides: Partial<PromotionDetail> = {}): PromotionDetail {
  return {
    id: 7,
    practice_id: 1,
    title: 'Spring glow',
    description: '',
    points_cost: 0,
    bonus_points: 0,
    points: 0,
    starts_at: null,
    ends_at: null,
    max_redemptions: null,
    per_patient_limit: 1,
    code: null,
    discount_cents: null,
    discount_percent: null,
    procedure_ids: [],
    status: 'live',
    published_at: '2026-11-01T00:00:00.000Z',
    ended_at: null,
    archived_at: null,
    created_at: '2026-11-01T00:00:00.000Z',
    funnel: { sent: 0, claimed: 0, redeemed: 0, expired: 0, redemption_rate: 0 },
    ...overrides,
  }
}
