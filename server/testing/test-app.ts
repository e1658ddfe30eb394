/**
 * Test support for the API: builds the real app on a real database, once per test file and per
 * backend. The backends are in-memory PGlite, always, and PostgreSQL when `TEST_DATABASE_URL` is
 * set; each run there gets a database of its own (created, then dropped), so runs never collide.
 *
 * ```ts
 * describe.each(testBackends())('patients on $name', (backend) => {
 *   let t: TestApp
 *   beforeAll(async () => { t = await createTestApp(backend) })
 *   afterAll(() => t.close())
 *   it('lists', async () => { const res = await t.request('/api/users', { token: t.demo.adminToken }) })
 * })
 * ```
 */

import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Logger } from 'drizzle-orm/logger'
import type { Role } from '#domain/permissions.ts'
import { type AppConfig, type AppType, createApp } from '#server/app.ts'
import { signSession } from '#server/auth/jwt.ts'
import { type Database, type DatabaseHandle, openDatabase } from '#server/db/client.ts'
import { sealJson } from '#server/db/data-key.ts'
import {
  appointments,
  patients,
  practices,
  procedures,
  products,
  promotions,
  uploads,
  users,
} from '#server/db/schema.ts'
import { DEMO_ADMIN, DEMO_STAFF, seedIfEmpty } from '#server/demo/seed.ts'
import { memoryLogger } from '#server/lib/log.ts'
import { randomToken } from '#server/lib/random.ts'
import { MAIL_TEMPLATES } from '#server/mail-templates.ts'
import { createOutboxMail } from '#server/messaging/mail.ts'
import { createOutboundQueue } from '#server/messaging/outbound.ts'
import { createOutboxSms } from '#server/messaging/sms.ts'
import type { NextechConnector } from '#server/nextech/connector.ts'
import { NEXTECH_SANDBOX } from '#server/nextech/sandbox.ts'
import { assertConforms } from '#server/openapi/contract.ts'
import { databaseCatalog } from '#server/payments/catalog.ts'
import {
  createTestGateway,
  databaseGatewayStore,
  type TestGateway,
} from '#server/payments/index.ts'
import type { HashingGate } from '#server/security/passwords.ts'
import {
  createDatabase,
  databaseUrl,
  dropDatabase,
  pgliteDump,
  readDbTemplates,
  TEST_SEED,
} from './db-templates.ts'

/** A database the suite can run against. */
export type TestBackend = {
  name: 'pglite' | 'postgres'
  /**
   * Opens a fresh, migrated database, empty or (`seeded`) with the plans, coupons and the demo
   * practice of {@link TEST_SEED}; closing it also removes it. A copy of the run's template when
   * the global setup made one (server/testing/db-templates.ts).
   */
  open(options?: { seeded?: boolean }): Promise<DatabaseHandle>
}

async function seededIf(handle: DatabaseHandle, seeded: boolean | undefined, copied: boolean) {
  if (seeded && !copied) await seedIfEmpty(handle.db, TEST_SEED)
  return handle
}

/** In-memory PGlite from the run's template; `logger` sees every statement (see openDatabase). */
export function pgliteBackendWith({ logger }: { logger?: Logger } = {}): TestBackend {
  return {
    name: 'pglite',
    async open({ seeded } = {}) {
      const template = readDbTemplates()?.pglite
      const dump = template && pgliteDump(seeded ? template.seeded : template.migrated)
      const handle = await openDatabase({ dataDir: 'memory', pgliteDump: dump, logger })
      return seededIf(handle, seeded, !!dump)
    },
  }
}

const pgliteBackend: TestBackend = pgliteBackendWith()

/**
 * A PostgreSQL backend that creates `glow_test_<random>` next to `baseUrl`'s database and drops
 * it on close. A database rather than a schema per run: drizzle-kit writes foreign keys as
 * `REFERENCES "public"."practices"`, so the migrations cannot run inside another schema.
 */
export function postgresBackend(baseUrl: string): TestBackend {
  return {
    name: 'postgres',
    async open({ seeded } = {}) {
      const name = `glow_test_${randomBytes(6).toString('hex')}`
      const templates = readDbTemplates()?.postgres
      const template =
        templates?.baseUrl === baseUrl
          ? seeded
            ? templates.seeded
            : templates.migrated
          : undefined
      await createDatabase(baseUrl, name, template)
      const handle = await openDatabase({ databaseUrl: databaseUrl(baseUrl, name) })
      return seededIf(
        {
          ...handle,
          async close() {
            await handle.close()
            await dropDatabase(baseUrl, name)
          },
        },
        seeded,
        !!template,
      )
    },
  }
}

/**
 * The databases for a file where the engine matters: in-memory PGlite, plus PostgreSQL when
 * `TEST_DATABASE_URL` is set. Concurrency, locks, transactions, triggers, aggregates, search,
 * queues and rate limits all behave by the engine, so their files run on both.
 */
export function testBackends(): TestBackend[] {
  const url = process.env.TEST_DATABASE_URL?.trim()
  return url ? [pgliteBackend, postgresBackend(url)] : [pgliteBackend]
}

/**
 * The database for a file that tests the HTTP surface over ordinary reads and writes (headers,
 * validation, permissions, the contract, sessions, settings forms): PGlite alone, since the engine
 * cannot change its outcome and the second run only doubled the suite's time (decision record 013).
 */
export function httpBackends(): TestBackend[] {
  return [pgliteBackend]
}

/** The secret every test app signs sessions with. */
export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789'

/** Mints a session token for a user, as sign-in would (test helper). */
export function mintToken(
  user: { id: number; practice_id: number },
  {
    secret = TEST_JWT_SECRET,
    remember = false,
    now = new Date(),
  }: { secret?: string; remember?: boolean; now?: Date } = {},
): Promise<string> {
  return signSession({ userId: user.id, practiceId: user.practice_id }, { secret, remember, now })
}

/** Request options for {@link TestApp.request}: a bearer token and/or a JSON body. */
export type TestRequestInit = RequestInit & { token?: string; json?: unknown }

/** A built app on a seeded database, with helpers. */
export type TestApp = {
  backend: TestBackend['name']
  app: AppType
  db: Database
  config: AppConfig
  log: ReturnType<typeof memoryLogger>
  /** The app's test payment gateway, on the app's clock, the seeded price list and the database. */
  payments: TestGateway
  /** The demo practice of the seed and tokens of its two users. */
  demo: {
    practiceId: number
    admin: { id: number; practice_id: number }
    staff: { id: number; practice_id: number }
    adminToken: string
    staffToken: string
  }
  /**
   * Sends every queued e-mail and SMS into the outbox now (the worker does it right after the
   * answer anyway; this makes a test wait for it).
   */
  deliver(): Promise<void>
  /** Sets the app's clock; `undefined` goes back to real time. */
  setNow(date: Date | undefined): void
  /**
   * `app.request` with `token` (Bearer) and `json` (serialised, with its Content-Type). Rejects
   * when the answer breaks the OpenAPI document (an unlisted status, or a body its schema refuses).
   */
  request(path: string, init?: TestRequestInit): Promise<Response>
  /** {@link request} to another app of this database (one from {@link makeApp}). */
  requestOn(app: AppType, path: string, init?: TestRequestInit): Promise<Response>
  /** Another app over the same database, e.g. with `{ production: true }` or a `distDir`. */
  /** A new app on this database; `hashing` replaces the argon2 gate (to count the work done). */
  makeApp(
    config?: Partial<AppConfig>,
    deps?: { hashing?: HashingGate; nextech?: NextechConnector },
  ): AppType
  /**
   * The server started again on the same database: a new app with a new test gateway, so nothing
   * kept in memory (card tokens, rate-limit counters) survives, only what the database holds. It
   * shares this app's database and clock; close one of the two, once.
   */
  restart(): Promise<TestApp>
  close(): Promise<void>
}

/** Builds the app on a fresh database of `backend`, migrated and seeded. */
export async function createTestApp(
  backend: TestBackend,
  config: Partial<AppConfig> = {},
): Promise<TestApp> {
  const handle = await backend.open({ seeded: true })
  const db = handle.db
  const log = memoryLogger()
  let fixedNow: Date | undefined
  const now = () => fixedNow ?? new Date()
  const baseConfig: AppConfig = {
    jwtSecret: TEST_JWT_SECRET,
    publicUrl: 'http://localhost:3000',
    allowedOrigins: ['http://localhost:3000'],
    production: false,
    ...config,
  }
  const mail = createOutboxMail(db, { now, log })
  const sms = createOutboxSms(db, { now, log })
  const outbound = createOutboundQueue({
    db,
    mail,
    sms,
    log,
    now,
    publicUrl: baseConfig.publicUrl,
    templates: MAIL_TEMPLATES,
  })

  const [admin] = await db
    .select({ id: users.id, practice_id: users.practice_id })
    .from(users)
    .where(eq(users.email, DEMO_ADMIN.email))
  const [staff] = await db
    .select({ id: users.id, practice_id: users.practice_id })
    .from(users)
    .where(eq(users.email, DEMO_STAFF.email))
  if (!admin || !staff) throw new Error('The seed has no demo users')
  const demo = {
    practiceId: admin.practice_id,
    admin,
    staff,
    adminToken: await mintToken(admin),
    staffToken: await mintToken(staff),
  }

  const assemble = (): TestApp => {
    const payments = createTestGateway({
      now,
      catalog: databaseCatalog(db),
      store: databaseGatewayStore(db),
    })
    const makeApp = (
      overrides: Partial<AppConfig> = {},
      deps: { hashing?: HashingGate; nextech?: NextechConnector } = {},
    ) =>
      createApp({
        db,
        mail,
        sms,
        outbound,
        payments,
        config: { ...baseConfig, ...overrides },
        now,
        log,
        ...(deps.hashing ? { hashing: deps.hashing } : {}),
        ...(deps.nextech ? { nextech: deps.nextech } : {}),
      })
    const app = makeApp()
    const requestOn = (
      target: AppType,
      path: string,
      { token, json, headers, ...init }: TestRequestInit = {},
    ) => {
      const merged = new Headers(headers)
      if (token) merged.set('Authorization', `Bearer ${token}`)
      let body = init.body
      if (json !== undefined) {
        if (!merged.has('Content-Type')) merged.set('Content-Type', 'application/json')
        body = JSON.stringify(json)
      }
      return Promise.resolve(target.request(path, { ...init, headers: merged, body })).then(
        async (response) => {
          // Every answer is held to the published contract (server/openapi/contract.ts).
          const { pathname } = new URL(path, 'http://localhost')
          await assertConforms(target.routes, init.method ?? 'GET', pathname, response)
          return response
        },
      )
    }

    return {
      backend: backend.name,
      app,
      db,
      config: baseConfig,
      log,
      payments,
      demo,
      deliver: () => outbound.drain(),
      setNow(date) {
        fixedNow = date
      },
      request: (path, init) => requestOn(app, path, init),
      requestOn,
      makeApp,
      restart: async () => assemble(),
      async close() {
        await outbound.stop()
        await handle.close()
      },
    }
  }
  return assemble()
}

/**
 * A member of practice `practiceId` with `role` (no usable password: tests mint their token), and
 * that token.
 */
export async function createMember(
  db: Database,
  practiceId: number,
  role: Role,
): Promise<{ user: { id: number; practice_id: number }; token: string }> {
  const [user] = await db
    .insert(users)
    .values({
      practice_id: practiceId,
      email: `${role.toLowerCase()}-${randomBytes(4).toString('hex')}@members.example`,
      password_hash: 'not-a-real-hash',
      first_name: 'Morgan',
      last_name: role,
      access_rights: role,
    })
    .returning({ id: users.id, practice_id: users.practice_id })
  if (!user) throw new Error('member not created')
  return { user, token: await mintToken(user) }
}

/**
 * A practice on the Nextech plan whose stored login is the sandbox's, sealed with `dataKey` as
 * the server seals it; answers its id.
 */
export async function insertSandboxNextechPractice(
  db: Database,
  dataKey: Buffer,
  name: string,
): Promise<number> {
  const [practice] = await db
    .insert(practices)
    .values({
      practice_name: `${name} ${randomToken(3)}`,
      e_record: 'nextech',
      nextech: sealJson(
        {
          client_id: NEXTECH_SANDBOX.clientId,
          username: NEXTECH_SANDBOX.username,
          password: NEXTECH_SANDBOX.password,
          nx_practice_id: NEXTECH_SANDBOX.practiceId,
        },
        dataKey,
      ),
    })
    .returning({ id: practices.id })
  if (!practice) throw new Error('practice not created')
  return practice.id
}

/** Patient columns for {@link insertPatient}: the unsubscribe id may be left out. */
export type PatientValues = Omit<typeof patients.$inferInsert, 'unsubscribe_id'> & {
  unsubscribe_id?: string
}

/**
 * Inserts a patient straight into the database, with a fresh unsubscribe id unless `values`
 * has one; answers its id, unsubscribe id and phone.
 */
export async function insertPatient(
  db: Database,
  values: PatientValues,
): Promise<{ id: number; unsubscribe_id: string; phone: string | null }> {
  const [row] = await db
    .insert(patients)
    .values({ unsubscribe_id: randomToken(), ...values })
    .returning({ id: patients.id, unsubscribe_id: patients.unsubscribe_id, phone: patients.phone })
  if (!row) throw new Error('no patient')
  return row
}

/** What {@link createPracticeFixture} made. */
export type PracticeFixture = {
  practiceId: number
  admin: { id: number; practice_id: number }
  token: string
  patientId: number
  unsubscribeId: string
  procedureId: number
  productId: number
  promotionId: number
  appointmentId: number
  uploadId: number
}

/** A second practice with an Admin, a patient, a procedure, a promotion, an appointment, a file. */
export async function createPracticeFixture(
  db: Database,
  { name = 'Other Practice', startsAt = new Date() }: { name?: string; startsAt?: Date } = {},
): Promise<PracticeFixture> {
  const suffix = randomBytes(4).toString('hex')
  const [practice] = await db
    .insert(practices)
    .values({ practice_name: name })
    .returning({ id: practices.id })
  if (!practice) throw new Error('practice not created')
  const [admin] = await db
    .insert(users)
    .values({
      practice_id: practice.id,
      email: `admin-${suffix}@other.example`,
      password_hash: 'not-a-real-hash',
      first_name: 'Olive',
      last_name: 'Other',
      access_rights: 'Admin',
    })
    .returning({ id: users.id, practice_id: users.practice_id })
  const unsubscribeId = randomToken()
  const [patient] = await db
    .insert(patients)
    .values({
      practice_id: practice.id,
      first_name: 'Peter',
      last_name: 'Private',
      email: `peter-${suffix}@other.example`,
      unsubscribe_id: unsubscribeId,
    })
    .returning({ id: patients.id })
  const [procedure] = await db
    .insert(procedures)
    .values({ practice_id: practice.id, name: 'Other Peel', price: 1000, points: 10 })
    .returning({ id: procedures.id })
  const [product] = await db
    .insert(products)
    .values({ practice_id: practice.id, name: 'Other Serum', price: 2000, points: null })
    .returning({ id: products.id })
  const [promotion] = await db
    .insert(promotions)
    .values({ practice_id: practice.id, title: 'Other Promo', points: 50 })
    .returning({ id: promotions.id })
  if (!admin || !patient || !procedure || !promotion) throw new Error('fixture not created')
  const [appointment] = await db
    .insert(appointments)
    .values({ practice_id: practice.id, patient_id: patient.id, starts_at: startsAt })
    .returning({ id: appointments.id })
  const [upload] = await db
    .insert(uploads)
    .values({
      practice_id: practice.id,
      name: 'logo.png',
      mime: 'image/png',
      size: 10,
      storage_key: `${suffix}.png`,
    })
    .returning({ id: uploads.id })
  if (!appointment || !upload || !product) throw new Error('fixture not created')
  return {
    practiceId: practice.id,
    admin,
    token: await mintToken(admin),
    patientId: patient.id,
    unsubscribeId,
    procedureId: procedure.id,
    productId: product.id,
    promotionId: promotion.id,
    appointmentId: appointment.id,
    uploadId: upload.id,
  }
}
