/**
 * Test support: the set-up most API test files share, registered as hooks of the enclosing
 * `describe`. Each function answers a stand-in for what its `beforeAll` makes; read it inside
 * hooks and tests (it is empty while the file is being collected). Hooks run in the order they
 * are registered, so a file's own `beforeAll` can use them.
 *
 * ```ts
 * describe.each(testBackends())('visits on $name', (backend) => {
 *   const t = useTestApp(backend)
 *   const other = usePracticeFixture(t)
 *   const manager = useMember(t, 'Manager')
 *   it('refuses another practice', async () => {
 *     const res = await t.request(`/api/patients/${other.patientId}`, { token: manager.token })
 *   })
 * })
 * ```
 */
import { afterAll, beforeAll, expect } from 'vitest'
import type { Role } from '#domain/permissions.ts'
import type { AppConfig } from '#server/app.ts'
import { users } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { hashPassword } from '#server/security/passwords.ts'
import {
  createMember,
  createPracticeFixture,
  createTestApp,
  insertPatient,
  type PatientValues,
  type PracticeFixture,
  type TestApp,
  type TestBackend,
} from './test-app.ts'

/**
 * A stand-in for an object a hook makes later: property reads (methods bound to the object),
 * `in`, keys and spreading all go to the object once `fill` has been called.
 */
function madeLater<T extends object>(what: string): { view: T; fill(value: T): void } {
  let target: T | undefined
  const ready = (): T => {
    if (!target) throw new Error(`${what} is not made yet: read it inside a hook or a test`)
    return target
  }
  const view = new Proxy({} as T, {
    get(_, key) {
      const object = ready()
      const value = Reflect.get(object, key, object)
      return typeof value === 'function' ? value.bind(object) : value
    },
    has: (_, key) => Reflect.has(ready(), key),
    ownKeys: () => Reflect.ownKeys(ready()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(ready(), key),
  })
  return {
    view,
    fill(value) {
      target = value
    },
  }
}

/**
 * A test app on `backend` (see {@link createTestApp}), built before the tests and closed after.
 * `config` may be a function, called when the hook runs (for a value an earlier hook makes).
 */
export function useTestApp(
  backend: TestBackend,
  config: Partial<AppConfig> | (() => Partial<AppConfig>) = {},
): TestApp {
  const app = madeLater<TestApp>('The test app')
  let made: TestApp | undefined
  beforeAll(async () => {
    made = await createTestApp(backend, typeof config === 'function' ? config() : config)
    app.fill(made)
  })
  afterAll(() => made?.close())
  return app.view
}

/** A second practice with its own data (see {@link createPracticeFixture}), made before the tests. */
export function usePracticeFixture(
  t: TestApp,
  options?: Parameters<typeof createPracticeFixture>[1],
): PracticeFixture {
  const fixture = madeLater<PracticeFixture>('The practice fixture')
  beforeAll(async () => fixture.fill(await createPracticeFixture(t.db, options)))
  return fixture.view
}

/** A member made by {@link useMember}: the user and a session token for them. */
export type Member = Awaited<ReturnType<typeof createMember>>

/**
 * A member with `role` of `practice` (the demo practice when left out), made before the tests.
 * `practice` may be a stand-in from {@link usePracticeFixture}: it is read when the hook runs.
 */
export function useMember(t: TestApp, role: Role, practice?: { practiceId: number }): Member {
  const member = madeLater<Member>(`The ${role}`)
  beforeAll(async () =>
    member.fill(await createMember(t.db, (practice ?? t.demo).practiceId, role)),
  )
  return member.view
}

/**
 * Gives a patient an opening balance of `points` through the API (an Admin's adjustment, by
 * default the demo Admin's), and checks it was booked.
 */
export async function grantPoints(
  t: TestApp,
  patientId: number,
  points: number,
  token = t.demo.adminToken,
): Promise<void> {
  const adjusted = await t.request(`/api/patients/${patientId}/adjustments`, {
    method: 'POST',
    token,
    json: { points, reason: 'opening balance', idempotencyKey: `opening-${randomToken()}` },
  })
  expect(adjusted.status).toBe(201)
}

/**
 * A user of the demo practice who signs in with `password`, under a fresh e-mail
 * `<prefix>-<random>@example.com`; `values` gives the name and any other column. Answers the
 * user's id, practice and e-mail.
 */
export async function userWithPassword(
  t: TestApp,
  prefix: string,
  password: string,
  values: { first_name: string; last_name: string } & Omit<
    Partial<typeof users.$inferInsert>,
    'email' | 'password_hash'
  >,
): Promise<{ id: number; practice_id: number; email: string }> {
  const [row] = await t.db
    .insert(users)
    .values({
      practice_id: t.demo.practiceId,
      email: `${prefix}-${randomToken(6).toLowerCase()}@example.com`,
      password_hash: await hashPassword(password),
      ...values,
    })
    .returning({ id: users.id, practice_id: users.practice_id, email: users.email })
  if (!row) throw new Error('user not created')
  return row
}

let phones = 0

/** A phone number no other test patient has, in the range kept for fiction: +1 555 04x-xxxx. */
export function testPhone(): string {
  return `+1 555 04${String(phones++).padStart(5, '0')}`
}

/**
 * A fresh patient of the demo practice (columns from `values` over the defaults, a phone of its
 * own from {@link testPhone} unless `values` has one), with an opening balance of `points` when
 * above 0 (see {@link grantPoints}). Answers its id and phone ('' when `values.phone` is null).
 */
export async function patientWithPoints(
  t: TestApp,
  points: number,
  values: Partial<PatientValues> = {},
): Promise<{ id: number; phone: string }> {
  const { id, phone } = await insertPatient(t.db, {
    practice_id: t.demo.practiceId,
    first_name: 'Robin',
    last_name: 'Desk',
    phone: testPhone(),
    ...values,
  })
  if (points > 0) await grantPoints(t, id, points)
  return { id, phone: phone ?? '' }
}

/** The `error.message` of an API error answer. */
export async function messageOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message
}
