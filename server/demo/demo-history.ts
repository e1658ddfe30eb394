/**
 * A year of history for the demo practice, so that every screen shows
 * something real on first start: about 60 patients who joined over the year, visits with the points
 * they earned, redemptions, manual adjustments with their reasons by each role, one lot that
 * lapsed, appointments today and this week, and promotions that are live, scheduled and ended with
 * their claims.
 *
 * Every point goes through the ledger service with its clock set to the moment it happened, so the
 * lots, allocations, expiries and cached balances are exactly what the product itself would have
 * written. The history is drawn from a seeded random sequence: the same `now` gives the same rows.
 */
import { eq } from 'drizzle-orm'
import { DAY_MS } from '#domain/time.ts'
import type { Database } from '#server/db/client.ts'
import { appointments, patientPromotions, patients, promotions } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger } from '#server/modules/ledger/index.ts'

/** How many patients the history adds to the demo's six. */
export const HISTORY_PATIENTS = 54

const FIRST_NAMES = [
  'Harper',
  'Rowan',
  'Quinn',
  'Sage',
  'Reese',
  'Skyler',
  'Parker',
  'Morgan',
  'Jamie',
  'Alex',
  'Taylor',
  'Jordan',
  'Cameron',
  'Riley',
  'Drew',
  'Kendall',
  'Logan',
  'Peyton',
  'Hayden',
  'Elliot',
  'Marisol',
  'Priya',
  'Yuki',
  'Amara',
  'Noor',
  'Ingrid',
  'Mateo',
  'Lucia',
  'Tomas',
  'Aisha',
]

const LAST_NAMES = [
  'Lopez',
  'Kim',
  'Okafor',
  'Schmidt',
  'Rossi',
  'Haddad',
  'Ivanova',
  'Sato',
  'Mensah',
  'Dubois',
  'Novak',
  'Silva',
  'Park',
  'Larsen',
  'Moreau',
  'Ali',
  'Costa',
  'Fischer',
  'Walsh',
  'Bennett',
  'Hughes',
  'Ramos',
  'Chen',
  'Nowak',
  'Alvarez',
  'Murphy',
  'Singh',
  'Tanaka',
  'Kowalski',
  'Byrne',
]

/** A small deterministic random sequence (mulberry32), so the demo is the same on every start. */
function randomSequence(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  }
}

/** `now`'s UTC date at `hours:minutes`, moved by `days`. */
export function at(now: Date, days: number, hours: number, minutes = 0): Date {
  const date = new Date(now.getTime() + days * DAY_MS)
  date.setUTCHours(hours, minutes, 0, 0)
  return date
}

/** What each demo offer says, by its title. */
const OFFER_DESCRIPTIONS = {
  'Holiday Glow Week': 'Double points on every facial during the holiday week.',
  'Spring Peel Special': '150 bonus points with any chemical peel this spring.',
  'Autumn Refresh': 'A free LED add-on with any HydraFacial this autumn.',
  'New Year Laser Offer': '300 bonus points on a laser hair removal package booked in January.',
  'Brow Bonus Week': '50 bonus points with any brow shaping, this week only.',
  'Lash Lift Launch': 'A free brow tint with your first lash lift (still being written).',
} as const

/**
 * The demo's offers, two ended, two live and two coming: title, bonus points, and the days from
 * now when each starts and ends (at midnight) and was written (at 9).
 */
const DEMO_OFFERS: readonly [
  title: keyof typeof OFFER_DESCRIPTIONS,
  points: number,
  starts: number,
  ends: number,
  written: number,
][] = [
  ['Holiday Glow Week', 250, -340, -333, -350],
  ['Spring Peel Special', 150, -240, -180, -245],
  ['Autumn Refresh', 100, -20, 40, -25],
  ['New Year Laser Offer', 300, 35, 70, -3],
  ['Brow Bonus Week', 50, -9, 5, -12],
  ['Lash Lift Launch', 0, 50, 80, -1],
]

export type DemoHistoryInput = {
  practiceId: number
  now: Date
  /** The demo's staff: who records visits, who adjusts (a Manager or the Admin). */
  staff: { adminId: number; managerId: number; staffId: number }
  /** The demo's procedures with their points per unit, as the seed wrote them. */
  procedures: readonly { id: number; points: number }[]
}

/** What the history wrote, for the seed's tests. */
export type DemoHistory = {
  patientIds: number[]
  visits: number
  redemptions: number
  adjustments: number
  expiredLots: number
}

/**
 * Adds the demo practice's year: patients, their past visits (completed appointments, each with its
 * earn entry), redemptions, adjustments, the lapsed lot, the coming appointments and promotions.
 * Runs inside the seed's transaction (`db` is that transaction).
 */
export async function seedDemoHistory(
  db: Database,
  { practiceId, now, staff, procedures }: DemoHistoryInput,
): Promise<DemoHistory> {
  const random = randomSequence(20_261_124)
  let clock = now
  const ledger = createLedger({ db, now: () => clock })
  const history: DemoHistory = {
    patientIds: [],
    visits: 0,
    redemptions: 0,
    adjustments: 0,
    expiredLots: 0,
  }

  // The patients, joined over the past year (the oldest 400 days ago: their first lot lapses).
  const rows = await db
    .insert(patients)
    .values(
      Array.from({ length: HISTORY_PATIENTS }, (_, index) => {
        const first_name = FIRST_NAMES[index % FIRST_NAMES.length] as string
        const last_name = LAST_NAMES[
          (index * 7 + Math.floor(index / 30)) % LAST_NAMES.length
        ] as string
        const slug = `${first_name}.${last_name}${index}`.toLowerCase()
        // The second joined 380 days ago: the worklist's points expiring within 30 days.
        const drawn = index === 0 ? 400 : random.int(3, 360)
        const joinedDaysAgo = index === 1 ? 380 : drawn
        return {
          practice_id: practiceId,
          first_name,
          last_name,
          // Some patients gave only one way to reach them, as at a real front desk.
          email: index % 9 === 4 ? null : `${slug}@example.com`,
          phone: index % 11 === 6 ? null : `+1555010${2000 + index}`,
          birth_date: random.chance(0.6)
            ? `${random.int(1960, 2002)}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`
            : null,
          email_subscription: index % 8 !== 3,
          sms_subscription: index % 3 !== 0,
          converted: random.chance(0.7),
          unsubscribe_id: randomToken(),
          created_at: at(now, -joinedDaysAgo, random.int(9, 17)),
        }
      }),
    )
    .returning({ id: patients.id, created_at: patients.created_at })

  // Each patient's visits, oldest first; the ledger posts each at its own moment.
  for (const [index, patient] of rows.entries()) {
    history.patientIds.push(patient.id)
    const joinedDaysAgo = Math.round((now.getTime() - patient.created_at.getTime()) / DAY_MS)
    const visitCount = index === 0 ? 2 : Math.max(index === 1 ? 1 : 0, random.int(0, 6))
    const visitDays = Array.from({ length: visitCount }, () => random.int(1, joinedDaysAgo))
      .sort((a, b) => b - a)
      // The oldest patient's first visit is the lot that lapses a year later.
      // The second patient's first visit, 350 days ago, lapses in about two weeks.
      .map((daysAgo, i) => (i === 0 && index === 0 ? 395 : i === 0 && index === 1 ? 350 : daysAgo))
    let lastVisit: Date | null = null
    for (const daysAgo of visitDays) {
      const procedure = random.pick(procedures)
      const startsAt = at(now, -daysAgo, random.int(9, 16), random.pick([0, 30]))
      const [appointment] = await db
        .insert(appointments)
        .values({
          practice_id: practiceId,
          patient_id: patient.id,
          procedure_id: procedure.id,
          starts_at: startsAt,
          status: 'completed',
          created_at: new Date(startsAt.getTime() - 7 * DAY_MS),
        })
        .returning({ id: appointments.id })
      clock = new Date(startsAt.getTime() + 45 * 60_000)
      const { expired } = await ledger.credit({
        practiceId,
        patientId: patient.id,
        userId: random.chance(0.5) ? staff.staffId : staff.managerId,
        kind: 'earn',
        points: procedure.points,
        sourceType: 'appointment',
        sourceId: appointment?.id ?? null,
        idempotencyKey: `seed:visit:${appointment?.id}`,
      })
      history.expiredLots += expired.length
      history.visits += 1
      lastVisit = clock
      // About one visit in four ends with a reward taken from the points.
      // (Never the oldest patient's: their first lot is the one left to lapse.)
      // (Nor the second's, whose first lot is about to lapse.)
      if (index !== 0 && random.chance(0.25) && index !== 1) {
        const balance = await balanceOf(db, patient.id)
        if (balance >= 100) {
          clock = new Date(clock.getTime() + 5 * 60_000)
          await ledger.redeem({
            practiceId,
            patientId: patient.id,
            userId: staff.staffId,
            points: Math.min(balance, random.pick([100, 200, 300])),
            sourceType: 'appointment',
            sourceId: appointment?.id ?? null,
            reason: 'Reward at checkout',
            idempotencyKey: `seed:redeem:${appointment?.id}`,
          })
          history.redemptions += 1
        }
      }
    }
    if (lastVisit) {
      await db.update(patients).set({ last_visit_at: lastVisit }).where(eq(patients.id, patient.id))
    }
    // A few balances fixed by hand, with the reason on record, by the Manager or the Admin.
    if (index % 10 === 5) {
      // After the patient's last visit, so the running balance reads in order.
      const after = (lastVisit ?? patient.created_at).getTime() + random.int(1, 20) * DAY_MS
      clock = new Date(Math.min(after, now.getTime() - 60 * 60_000))
      await ledger.adjust({
        practiceId,
        patientId: patient.id,
        userId: index % 20 === 5 ? staff.managerId : staff.adminId,
        points: index % 20 === 5 ? 250 : 100,
        reason: index % 20 === 5 ? 'Birthday bonus' : 'Goodwill after a rescheduled visit',
        idempotencyKey: `seed:adjust:${patient.id}`,
      })
      history.adjustments += 1
    }
  }

  // The lots that lapsed since they were posted, as the daily expiry job would have found them.
  clock = now
  history.expiredLots += (await ledger.expireDue(practiceId)).length

  // The coming week: a few appointments each day, from today on.
  const procedureIds = procedures.map((p) => p.id)
  const coming = []
  for (let day = 0; day < 7; day += 1) {
    for (let slot = 0; slot < (day === 0 ? 4 : random.int(1, 3)); slot += 1) {
      coming.push({
        practice_id: practiceId,
        patient_id: random.pick(history.patientIds),
        procedure_id: random.pick(procedureIds),
        starts_at: at(now, day, 9 + slot * 2, random.pick([0, 30])),
        status: 'scheduled',
        created_at: at(now, -random.int(1, 20), 10),
      })
    }
  }
  await db.insert(appointments).values(coming)

  // Promotions that ended, are live and are coming, with the patients who claimed them.
  const promotionRows = await db
    .insert(promotions)
    .values(
      DEMO_OFFERS.map(([title, points, starts, ends, written], i) => ({
        practice_id: practiceId,
        title,
        description: OFFER_DESCRIPTIONS[title],
        points,
        starts_at: at(now, starts, 0),
        ends_at: at(now, ends, 0),
        created_at: at(now, written, 9),
        // Every offer but the last (a draft) was published the day it was written; the live one
        // is limited to 40 claims, one per patient, and costs 100 points.
        published_at: i < 5 ? at(now, written, 9) : null,
        max_redemptions: i === 2 ? 40 : null,
        points_cost: i === 2 ? 100 : 0,
      })),
    )
    .returning()
  const claims = []
  for (const [p, promotion] of promotionRows.entries()) {
    // The coming offer has no claims yet; the ended ones were mostly redeemed.
    if (!promotion.starts_at || promotion.starts_at > now) continue
    const claimers = history.patientIds.filter((_, i) => (i + p) % 6 === 0)
    for (const [i, patientId] of claimers.entries()) {
      const claimedAt = new Date(promotion.starts_at.getTime() + (i + 1) * DAY_MS)
      const redeemed = p < 2 ? i % 3 !== 2 : i % 3 === 0
      claims.push({
        patient_id: patientId,
        promotion_id: promotion.id,
        practice_id: practiceId,
        status: redeemed ? 'redeemed' : p < 2 ? 'expired' : 'claimed',
        title: promotion.title,
        points_cost: promotion.points_cost,
        bonus_points: promotion.points,
        ends_at: promotion.ends_at,
        claimed_at: claimedAt,
        redeemed_at: redeemed ? new Date(claimedAt.getTime() + 3 * DAY_MS) : null,
        expired_at: !redeemed && p < 2 ? promotion.ends_at : null,
      })
    }
  }
  if (claims.length > 0) await db.insert(patientPromotions).values(claims)
  return history
}

async function balanceOf(db: Database, patientId: number): Promise<number> {
  const [row] = await db
    .select({ points: patients.points })
    .from(patients)
    .where(eq(patients.id, patientId))
  return row?.points ?? 0
}
