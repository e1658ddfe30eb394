import { count, eq, sql } from 'drizzle-orm'
import { DAY_MS } from '#domain/time.ts'
import type { Database } from '#server/db/client.ts'
import {
  activities,
  appointments,
  coupons,
  outbox,
  patientPromotions,
  patients,
  personnelInvitations,
  plans,
  practices,
  procedures,
  products,
  promotions,
  users,
} from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { createLedger } from '#server/modules/ledger/index.ts'
import { hashPassword } from '#server/security/passwords.ts'
import { at, seedDemoHistory } from './demo-history.ts'
import { seedDemoSubscription } from './demo-subscription.ts'

/** The demo practice's Admin: the sign-in the start banner prints. */
export const DEMO_ADMIN = {
  email: 'demo@example.com',
  password: 'DemoPass123',
  first_name: 'Demo',
  last_name: 'Admin',
} as const

/** The demo practice's Manager: adjusts points, runs promotions, no settings. */
export const DEMO_MANAGER = {
  email: 'manager@example.com',
  password: 'ManagerPass123',
  first_name: 'Morgan',
  last_name: 'Reyes',
} as const

/** A second, non-Admin member of the demo practice. */
export const DEMO_STAFF = {
  email: 'staff@example.com',
  password: 'StaffPass123',
  first_name: 'Sam',
  last_name: 'Rivera',
} as const

/** The demo patients' opening balances, in the order the seed adds them. */
const DEMO_OPENING_POINTS = [1250, 430, 90, 2210, 0, 315]

export const DEMO_PRACTICE_NAME = 'Glow Demo Med Spa'

/** The person the demo practice has invited but who has not registered yet. */
export const DEMO_INVITEE = {
  email: 'jordan.lee@example.com',
  first_name: 'Jordan',
  last_name: 'Lee',
  position: 'Provider',
} as const

/**
 * The plans (Stripe's shape, cents). The Lite prices are ours: $99 a month, or $1,068 a year
 * ($89 a month). The EHR prices are the spec's: $499 a month, $450 a month on a yearly plan.
 */
export const SEED_PLANS = [
  { id: 'plan_glow_monthly_lite', nickname: 'Glow Monthly Lite', interval: 'month', amount: 9900 },
  { id: 'plan_glow_yearly_lite', nickname: 'Glow Yearly Lite', interval: 'year', amount: 106800 },
  { id: 'plan_glow_ehr_monthly', nickname: 'Glow EHR Monthly', interval: 'month', amount: 49900 },
  { id: 'plan_glow_ehr_yearly', nickname: 'Glow EHR Yearly', interval: 'year', amount: 540000 },
] as const

/** The product's coupons, in every database: the public one the wizard lists. */
export const SEED_COUPONS = [
  { id: 'WELCOME10', amount_off: null, percent_off: 10, public: true },
] as const

/**
 * The demo's private coupon (found only by its code). Seeded with the demo practice only: a
 * private code printed in the README is a discount anyone can type, so a production database does
 * not get it (docs/decisions/005-production-defaults-and-audit-chain.md).
 */
export const DEMO_COUPONS = [
  { id: 'SAVE50OFF', amount_off: 5000, percent_off: null, public: false },
] as const

// Any constant works; it only has to be the same for every server instance seeding the database.
const SEED_LOCK_KEY = 7_340_221

export type SeedOptions = {
  /** Base of the link in the seeded invitation e-mail, e.g. `http://localhost:3000`. */
  publicUrl: string
  now?: Date
  /**
   * Also seed the demo practice and its private coupon (default true; the server passes
   * SEED_DEMO, which is off in production unless asked for).
   */
  demo?: boolean
  /**
   * Also give the demo practice its year of history (server/demo/demo-history.ts; default true).
   * The API tests leave it out: they build on the six demo patients and need a fast seed.
   */
  history?: boolean
  /**
   * Also give the demo practice its customer and subscription on the built-in test gateway
   * (server/demo/demo-subscription.ts; default true). The server passes false when it takes
   * payments with Stripe, which would not know them.
   */
  testGateway?: boolean
}

/** Whether the demo practice's Admin exists (the start banner mentions the demo sign-in then). */
export async function hasDemoAdmin(db: Database): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, DEMO_ADMIN.email))
    .limit(1)
  return row !== undefined
}

/**
 * Gives an empty database (no plans) the seed every installation needs: the product's plans and
 * public coupon always; with `demo`, the demo's private coupon and a demo practice with one member
 * of each role (Admin, Manager, Staff), patients, a pending invitation (its e-mail sits in the outbox), procedures,
 * products, appointments, activities and promotions. Runs in one transaction under an advisory
 * lock, so several instances starting together seed once. Returns whether it seeded.
 */
export async function seedIfEmpty(
  db: Database,
  { publicUrl, now = new Date(), demo = true, history = true, testGateway = true }: SeedOptions,
) {
  const hashes = demo
    ? await Promise.all([
        hashPassword(DEMO_ADMIN.password),
        hashPassword(DEMO_STAFF.password),
        hashPassword(DEMO_MANAGER.password),
      ])
    : undefined
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_KEY})`)
    const [existing] = await tx.select({ plans: count() }).from(plans)
    if ((existing?.plans ?? 0) > 0) return false

    await tx
      .insert(plans)
      .values(SEED_PLANS.map((plan, index) => ({ ...plan, interval_count: 1, sort_order: index })))
    await tx.insert(coupons).values([...SEED_COUPONS])
    if (!hashes) return true
    const [adminHash, staffHash, managerHash] = hashes
    await tx.insert(coupons).values([...DEMO_COUPONS])

    const [practice] = await tx
      .insert(practices)
      .values({
        practice_name: DEMO_PRACTICE_NAME,
        office_name: 'Downtown',
        url: 'glow-demo-medspa.example',
        practice_phone: '5550100100',
        practice_email: 'hello@glow-demo-medspa.example',
        practice_address: '100 Market Street',
        city: 'Springfield',
        practice_zip: '62701',
        state: 'IL',
        country: 'US',
        e_record: 'no_integration',
        plan_id: 'plan_glow_monthly_lite',
        subscription_basic: true,
        subscription_ehr: false,
        subscription_months: 1,
        billing_address_1: '100 Market Street',
        billing_city: 'Springfield',
        billing_state: 'IL',
        billing_zip: '62701',
      })
      .returning({ id: practices.id })
    if (!practice) throw new Error('The demo practice was not created')
    const practiceId = practice.id
    if (testGateway) {
      await seedDemoSubscription(tx, {
        practiceId,
        now,
        email: 'hello@glow-demo-medspa.example',
        billing: {
          name: DEMO_PRACTICE_NAME,
          line1: '100 Market Street',
          city: 'Springfield',
          state: 'IL',
          postalCode: '62701',
        },
        plan: { id: 'plan_glow_monthly_lite', interval: 'month' },
      })
    }

    const [admin, staffMember, manager] = await tx
      .insert(users)
      .values([
        {
          practice_id: practiceId,
          email: DEMO_ADMIN.email,
          username: DEMO_ADMIN.email,
          password_hash: adminHash,
          title: 'Dr.',
          first_name: DEMO_ADMIN.first_name,
          last_name: DEMO_ADMIN.last_name,
          cell_phone: '5552100101',
          country_code: '+1',
          position: 'Provider',
          access_rights: 'Admin',
        },
        {
          practice_id: practiceId,
          email: DEMO_STAFF.email,
          username: DEMO_STAFF.email,
          password_hash: staffHash,
          first_name: DEMO_STAFF.first_name,
          last_name: DEMO_STAFF.last_name,
          cell_phone: '5552100102',
          country_code: '+1',
          position: 'Staff',
          access_rights: 'Staff',
        },
        {
          practice_id: practiceId,
          email: DEMO_MANAGER.email,
          username: DEMO_MANAGER.email,
          password_hash: managerHash,
          first_name: DEMO_MANAGER.first_name,
          last_name: DEMO_MANAGER.last_name,
          cell_phone: '5552100103',
          country_code: '+1',
          position: 'Provider',
          access_rights: 'Manager',
        },
      ])
      .returning({ id: users.id })
    if (!admin || !staffMember || !manager) throw new Error('The demo staff was not created')

    const invitationId = randomToken()
    await tx.insert(personnelInvitations).values({
      id: invitationId,
      practice_id: practiceId,
      invited_by: admin.id,
      ...DEMO_INVITEE,
      status: 'pending',
      expires_at: new Date(now.getTime() + 30 * DAY_MS),
      created_at: now,
    })
    const link = `${publicUrl.replace(/\/+$/, '')}/signup/personnel/${invitationId}`
    await tx.insert(outbox).values({
      channel: 'email',
      to: DEMO_INVITEE.email,
      subject: `You are invited to join ${DEMO_PRACTICE_NAME} on Glow Rewards`,
      text: `Hello ${DEMO_INVITEE.first_name},\n\n${DEMO_ADMIN.first_name} ${DEMO_ADMIN.last_name} invited you to join ${DEMO_PRACTICE_NAME} on Glow Rewards. Register here:\n${link}\n`,
      link,
      sent_at: now,
    })

    const patientRows = await tx
      .insert(patients)
      .values(
        [
          ['Avery', 'Johnson', 'avery.johnson@example.com', '+15550101001', true],
          ['Blake', 'Martinez', 'blake.martinez@example.com', '+15550101002', true],
          ['Casey', 'Nguyen', 'casey.nguyen@example.com', '+15550101003', false],
          ['Dana', "O'Connor", 'dana.oconnor@example.com', '+15550101004', true],
          ['Emery', 'Patel', 'emery.patel@example.com', null, false],
          ['Finley', 'Brooks', null, '+15550101006', false],
        ].map(([first_name, last_name, email, phone, converted]) => ({
          practice_id: practiceId,
          first_name: first_name as string,
          last_name: last_name as string,
          email: email as string | null,
          phone: phone as string | null,
          converted: converted as boolean,
          email_subscription: true,
          unsubscribe_id: randomToken(),
          created_at: now,
        })),
      )
      .returning({ id: patients.id })
    // Balances come from the ledger, never written straight into the cache.
    const ledger = createLedger({ db: tx, now: () => now })
    for (const [index, points] of DEMO_OPENING_POINTS.entries()) {
      const row = patientRows[index]
      if (row && points > 0) {
        await ledger.credit({
          practiceId,
          patientId: row.id,
          userId: null,
          kind: 'earn',
          points,
          sourceType: 'import',
          reason: 'Opening balance',
          idempotencyKey: `seed:opening:${row.id}`,
        })
      }
    }
    const patientId = (index: number) => {
      const row = patientRows[index]
      if (!row) throw new Error(`Seed patient ${index} is missing`)
      return row.id
    }

    const procedureRows = await tx
      .insert(procedures)
      .values([
        { practice_id: practiceId, name: 'Botox (per area)', price: 35000, points: 350 },
        { practice_id: practiceId, name: 'HydraFacial', price: 19900, points: 200 },
        { practice_id: practiceId, name: 'Laser Hair Removal', price: 25000, points: 250 },
        { practice_id: practiceId, name: 'Chemical Peel', price: 15000, points: 150 },
      ])
      .returning({ id: procedures.id, points: procedures.points })
    const procedureId = (index: number) => procedureRows[index]?.id ?? null

    await tx.insert(products).values([
      { practice_id: practiceId, name: 'Vitamin C Serum', price: 18200, points: 180 },
      { practice_id: practiceId, name: 'Mineral Sunscreen SPF 46', price: 4100, points: 40 },
      { practice_id: practiceId, name: 'Hydrating B5 Gel', price: 9800, points: 100 },
    ])

    await tx.insert(appointments).values([
      {
        practice_id: practiceId,
        patient_id: patientId(0),
        procedure_id: procedureId(0),
        starts_at: at(now, -1, 15),
        status: 'completed',
      },
      {
        practice_id: practiceId,
        patient_id: patientId(1),
        procedure_id: procedureId(1),
        starts_at: at(now, 0, 9),
        status: 'scheduled',
      },
      {
        practice_id: practiceId,
        patient_id: patientId(3),
        procedure_id: procedureId(2),
        starts_at: at(now, 0, 11, 30),
        status: 'scheduled',
      },
      {
        practice_id: practiceId,
        patient_id: patientId(2),
        procedure_id: procedureId(3),
        starts_at: at(now, 0, 14),
        status: 'cancelled',
      },
      {
        practice_id: practiceId,
        patient_id: patientId(5),
        procedure_id: procedureId(1),
        starts_at: at(now, 1, 10),
        status: 'scheduled',
      },
    ])

    const promotionRows = await tx
      .insert(promotions)
      .values(
        [
          {
            practice_id: practiceId,
            title: 'Refer a Friend',
            description: 'Earn 500 points when a friend you refer books their first treatment.',
            points: 500,
          },
          {
            practice_id: practiceId,
            title: 'Birthday Glow',
            description: 'A complimentary HydraFacial upgrade during your birthday month.',
            points: 200,
          },
          {
            practice_id: practiceId,
            title: 'Summer Skin Bundle',
            description: 'Double points on any chemical peel booked this summer.',
            points: 300,
            starts_at: at(now, -30, 0),
            ends_at: at(now, 60, 0),
          },
        ].map((p) => ({ ...p, published_at: at(now, -40, 9) })),
      )
      .returning({ id: promotions.id })
    const promotionId = (index: number) => {
      const row = promotionRows[index]
      if (!row) throw new Error(`Seed promotion ${index} is missing`)
      return row.id
    }

    await tx.insert(patientPromotions).values([
      {
        practice_id: practiceId,
        patient_id: patientId(0),
        promotion_id: promotionId(0),
        status: 'redeemed',
        claimed_at: at(now, -10, 12),
        redeemed_at: at(now, -1, 16),
      },
      {
        practice_id: practiceId,
        patient_id: patientId(3),
        promotion_id: promotionId(1),
        status: 'claimed',
        claimed_at: at(now, -2, 10),
      },
    ])

    await tx.insert(activities).values([
      {
        practice_id: practiceId,
        patient_id: patientId(0),
        kind: 'visit',
        description: 'Botox (per area)',
        points: 350,
        created_at: at(now, -1, 15, 45),
      },
      {
        practice_id: practiceId,
        patient_id: patientId(0),
        kind: 'promotion_redeemed',
        description: 'Refer a Friend',
        points: 500,
        created_at: at(now, -1, 16),
      },
      {
        practice_id: practiceId,
        patient_id: patientId(3),
        kind: 'promotion_claimed',
        description: 'Birthday Glow',
        points: 0,
        created_at: at(now, -2, 10),
      },
      {
        practice_id: practiceId,
        patient_id: patientId(1),
        kind: 'purchase',
        description: 'Vitamin C Serum',
        points: 180,
        created_at: at(now, -5, 13),
      },
    ])
    if (history) {
      await seedDemoHistory(tx, {
        practiceId,
        now,
        staff: { adminId: admin.id, managerId: manager.id, staffId: staffMember.id },
        procedures: procedureRows.map((row) => ({ id: row.id, points: row.points ?? 100 })),
      })
    }
    return true
  })
}
