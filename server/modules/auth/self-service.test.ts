import { and, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { FIELD_MESSAGES } from '#domain/fields.ts'
import { PERMISSION_REFUSALS, type Role } from '#domain/permissions.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { auditEvents, users } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { usePracticeFixture, userWithPassword, useTestApp } from '#server/testing/suite.ts'
import { createMember, httpBackends } from '#server/testing/test-app.ts'

type Answer = { status: number; body: Record<string, unknown> }
type ErrorAnswer = { error: { message: string; details?: { issues?: { message: string }[] } } }

describe.each(httpBackends())('self-service of members and passwords on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)

  const call = async (
    path: string,
    token: string,
    init: { method?: string; json?: unknown } = {},
  ): Promise<Answer> => {
    const response = await t.request(path, { method: 'POST', token, ...init })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const setRole = (id: number, role: Role, token = t.demo.adminToken) =>
    call(`/api/users/${id}/role`, token, { method: 'PUT', json: { access_rights: role } })
  const message = (answer: Answer) => (answer.body as unknown as ErrorAnswer).error.message

  /** A member of the demo practice with a real password, signed in through the API. */
  async function signedInMember(role: Role, password = 'Lantern-Harbor-42') {
    const row = await userWithPassword(t, 'self', password, {
      first_name: 'Jamie',
      last_name: 'Lopez',
      access_rights: role,
    })
    const email = row.email
    const signIn = await call('/api/auth/local', '', {
      json: { identifier: email, password },
    })
    expect(signIn.status).toBe(200)
    return { id: row.id, email, password, token: signIn.body.jwt as string }
  }

  const auditOf = (action: 'user.role_changed' | 'user.deactivated' | 'user.reactivated') =>
    t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, action), eq(auditEvents.practice_id, t.demo.practiceId)))

  it('lets an Admin promote a Staff member, who can adjust points at the next request', async () => {
    const member = await signedInMember('Staff')
    const patient = await call('/api/patients', t.demo.adminToken, {
      json: { first_name: 'Pat', last_name: 'Points' },
    })
    const adjust = () =>
      call(`/api/patients/${patient.body.id}/adjustments`, member.token, {
        json: { points: 500, reason: 'birthday', idempotencyKey: randomToken(12) },
      })
    expect((await adjust()).status).toBe(403)
    const promoted = await setRole(member.id, 'Manager')
    expect(promoted).toMatchObject({
      status: 200,
      body: { id: member.id, access_rights: 'Manager' },
    })
    expect((await adjust()).status).toBe(201)
    const events = await auditOf('user.role_changed')
    expect(events.at(-1)).toMatchObject({
      user_id: t.demo.admin.id,
      details: { member: member.id, from: 'Staff', to: 'Manager' },
    })
  })

  it('refuses the change to Staff and Manager, and another practice answers as unknown', async () => {
    const manager = await createMember(t.db, t.demo.practiceId, 'Manager')
    for (const token of [t.demo.staffToken, manager.token]) {
      const refused = await setRole(t.demo.staff.id, 'Admin', token)
      expect(refused.status).toBe(403)
      expect(message(refused)).toBe(PERMISSION_REFUSALS['personnel.manage'])
      for (const action of ['deactivate', 'reactivate']) {
        const answer = await call(`/api/users/${t.demo.staff.id}/${action}`, token)
        expect(answer.status).toBe(403)
      }
    }
    const [row] = await t.db.select().from(users).where(eq(users.id, t.demo.staff.id))
    expect(row?.access_rights).toBe('Staff')
    for (const path of [
      `/api/users/${other.admin.id}/deactivate`,
      `/api/users/${other.admin.id}/reactivate`,
    ]) {
      expect(await call(path, t.demo.adminToken)).toMatchObject({
        status: 404,
        body: { error: { message: 'User not found.' } },
      })
    }
    expect((await setRole(other.admin.id, 'Staff')).status).toBe(404)
    const [theirs] = await t.db.select().from(users).where(eq(users.id, other.admin.id))
    expect(theirs).toMatchObject({ access_rights: 'Admin', deactivated_at: null })
  })

  it('refuses an unknown role with a sentence', async () => {
    const answer = await call(`/api/users/${t.demo.staff.id}/role`, t.demo.adminToken, {
      method: 'PUT',
      json: { access_rights: 'Owner' },
    })
    expect(answer.status).toBe(400)
    expect((answer.body as unknown as ErrorAnswer).error.details?.issues?.[0]?.message).toBe(
      SELF_SERVICE_MESSAGES.roleRequired,
    )
  })

  it('keeps the last active Admin: no demotion, no deactivation, not even of oneself', async () => {
    // The fixture practice has exactly one Admin.
    const demote = await setRole(other.admin.id, 'Manager', other.token)
    expect(demote).toMatchObject({ status: 409 })
    expect(message(demote)).toBe(SELF_SERVICE_MESSAGES.lastAdmin)
    const second = await createMember(t.db, other.practiceId, 'Admin')
    const deactivateFirst = await call(`/api/users/${other.admin.id}/deactivate`, second.token)
    expect(deactivateFirst.status).toBe(200)
    // Now `second` is the only active Admin: the deactivated one does not count.
    const demoteSecond = await setRole(second.user.id, 'Staff', second.token)
    expect(message(demoteSecond)).toBe(SELF_SERVICE_MESSAGES.lastAdmin)
    const self = await call(`/api/users/${second.user.id}/deactivate`, second.token)
    expect(self.status).toBe(409)
    expect(message(self)).toBe(SELF_SERVICE_MESSAGES.ownAccount)
    expect((await call(`/api/users/${other.admin.id}/reactivate`, second.token)).status).toBe(200)
    // With two active Admins again, one may step down.
    expect((await setRole(second.user.id, 'Staff', second.token)).status).toBe(200)
  })

  it('ends a deactivated member session at once, refuses their sign-in, and lets them back', async () => {
    const member = await signedInMember('Staff')
    expect((await t.request('/api/users', { token: member.token })).status).toBe(200)
    const deactivated = await call(`/api/users/${member.id}/deactivate`, t.demo.adminToken)
    expect(deactivated.status).toBe(200)
    expect(deactivated.body.deactivated_at).toEqual(expect.any(String))
    expect((await t.request('/api/users', { token: member.token })).status).toBe(401)
    // Twice is harmless and records once.
    const before = (await auditOf('user.deactivated')).length
    expect((await call(`/api/users/${member.id}/deactivate`, t.demo.adminToken)).status).toBe(200)
    expect((await auditOf('user.deactivated')).length).toBe(before)

    const wrong = await call('/api/auth/local', '', {
      json: { identifier: member.email, password: 'Not-The-Password-1' },
    })
    expect(message(wrong)).toBe('Invalid Email or Password')
    const refused = await call('/api/auth/local', '', {
      json: { identifier: member.email, password: member.password },
    })
    expect(refused.status).toBe(403)
    expect(message(refused)).toBe(SELF_SERVICE_MESSAGES.deactivated)

    const list = await t.request('/api/users', { token: t.demo.adminToken })
    const rows = (await list.json()) as { id: number; deactivated_at: string | null }[]
    expect(rows.find((row) => row.id === member.id)?.deactivated_at).toEqual(expect.any(String))

    expect(
      (await call(`/api/users/${member.id}/reactivate`, t.demo.adminToken)).body,
    ).toMatchObject({
      deactivated_at: null,
    })
    // The old session stays ended; a new sign-in works and is remembered.
    expect((await t.request('/api/users', { token: member.token })).status).toBe(401)
    const back = await call('/api/auth/local', '', {
      json: { identifier: member.email, password: member.password },
    })
    expect(back.status).toBe(200)
    const [row] = await t.db.select().from(users).where(eq(users.id, member.id))
    expect(row?.last_sign_in_at).toBeInstanceOf(Date)
    // Only an Admin sees when colleagues last signed in.
    const seen = async (token: string) => {
      const answer = await t.request('/api/users', { token })
      const list = (await answer.json()) as { id: number; last_sign_in_at: string | null }[]
      return list.find((entry) => entry.id === member.id)?.last_sign_in_at
    }
    expect(await seen(t.demo.adminToken)).toEqual(expect.any(String))
    expect(await seen(t.demo.staffToken)).toBeNull()
    expect((await auditOf('user.reactivated')).at(-1)).toMatchObject({
      details: { member: member.id },
    })
  })

  it('changes the own password: the old one fails, other sessions end, this one goes on', async () => {
    const member = await signedInMember('Staff')
    const elsewhere = member.token
    const change = (json: object, token = member.token) =>
      call('/api/auth/change-password', token, { json })
    const wrong = await change({
      current_password: 'Wrong-Guess-99',
      password: 'Copper-Meadow-77',
      passwordConfirmation: 'Copper-Meadow-77',
    })
    expect(wrong.status).toBe(400)
    expect(message(wrong)).toBe(SELF_SERVICE_MESSAGES.currentPasswordWrong)
    const common = await change({
      current_password: member.password,
      password: 'password123',
      passwordConfirmation: 'password123',
    })
    expect(common.status).toBe(400)
    // Sign-up's strong rule and its sentence, on the server too.
    for (const weak of ['copper meadow', 'coppermeadow77', 'COPPER-MEADOW-77', 'Copper-Meadow']) {
      const refused = await change({
        current_password: member.password,
        password: weak,
        passwordConfirmation: weak,
      })
      expect(refused.status).toBe(400)
      expect((refused.body as unknown as ErrorAnswer).error.details?.issues?.[0]?.message).toBe(
        FIELD_MESSAGES.password.strong,
      )
    }
    const same = await change({
      current_password: member.password,
      password: member.password,
      passwordConfirmation: member.password,
    })
    expect((same.body as unknown as ErrorAnswer).error.details?.issues?.[0]?.message).toBe(
      SELF_SERVICE_MESSAGES.samePassword,
    )

    // A moment later than the sign-in, as in life: tokens made before the change end.
    t.setNow(new Date(Date.now() + 60_000))
    try {
      const changed = await change({
        current_password: member.password,
        password: 'Copper-Meadow-77',
        passwordConfirmation: 'Copper-Meadow-77',
      })
      expect(changed.status).toBe(200)
      const fresh = changed.body.jwt as string
      expect((await t.request('/api/users', { token: elsewhere })).status).toBe(401)
      expect((await t.request('/api/users', { token: fresh })).status).toBe(200)
      const old = await call('/api/auth/local', '', {
        json: { identifier: member.email, password: member.password },
      })
      expect(old.status).toBe(400)
      const now = await call('/api/auth/local', '', {
        json: { identifier: member.email, password: 'Copper-Meadow-77' },
      })
      expect(now.status).toBe(200)
    } finally {
      t.setNow(undefined)
    }
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'password.changed'), eq(auditEvents.user_id, member.id)))
    expect(event).toBeDefined()
    expect(JSON.stringify(event?.details ?? {})).not.toContain('Copper')
  })

  it("lets a member edit their own title and names, never a colleague's, with the name rules", async () => {
    const member = await signedInMember('Staff')
    const edit = (id: number, json: object, token = member.token) =>
      call(`/api/users/${id}`, token, { method: 'PUT', json })
    const saved = await edit(member.id, { title: 'Dr.', first_name: 'Jamie', last_name: "O'Hara" })
    expect(saved).toMatchObject({
      status: 200,
      body: { id: member.id, title: 'Dr.', first_name: 'Jamie', last_name: "O'Hara" },
    })
    const bad = await edit(member.id, { title: '', first_name: 'J', last_name: 'L0pez' })
    expect(bad.status).toBe(400)
    expect(
      (bad.body as unknown as ErrorAnswer).error.details?.issues?.map((issue) => issue.message),
    ).toEqual([
      'First name should contain minimum 2 characters',
      "Last name should contain only letters, -, ` and '",
    ])
    const colleague = await edit(t.demo.staff.id, { title: '', first_name: 'Eve', last_name: 'Il' })
    expect(colleague.status).toBe(403)
    expect(message(colleague)).toBe(SELF_SERVICE_MESSAGES.ownProfileOnly)
    // Even an Admin edits only their own profile; another practice's id answers as unknown.
    expect(
      (await edit(member.id, { first_name: 'Eve', last_name: 'Il' }, t.demo.adminToken)).status,
    ).toBe(403)
    expect((await edit(other.admin.id, { first_name: 'Eve', last_name: 'Il' })).status).toBe(404)
    const [row] = await t.db.select().from(users).where(eq(users.id, member.id))
    expect(row).toMatchObject({ title: 'Dr.', first_name: 'Jamie', last_name: "O'Hara" })
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.action, 'user.profile_updated'), eq(auditEvents.user_id, member.id)),
      )
    expect(event?.details).toEqual({ fields: 'title,last_name' })
  })
})
