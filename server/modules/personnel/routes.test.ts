import { and, desc, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import type { PersonnelInvitation, PersonnelRegisterPayloadInput } from '#domain/personnel.ts'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import { DAY_MS } from '#domain/time.ts'
import { outbox, personnelInvitations, users, verificationCodes } from '#server/db/schema.ts'
import { DEMO_INVITEE, DEMO_PRACTICE_NAME } from '#server/demo/seed.ts'
import { VERIFICATION_MESSAGES } from '#server/messaging/verification.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { createPracticeFixture, httpBackends, mintToken } from '#server/testing/test-app.ts'
import { INVITATION_RESEND_LIMIT, PERSONNEL_RESEND_TOO_SOON } from './routes.ts'

const LINK = /^http:\/\/localhost:3000\/signup\/personnel\/([\w-]{43})$/

describe.each(httpBackends())('personnel on $name', (backend) => {
  const t = useTestApp(backend)
  let counter = 0
  // Every test uses its own e-mail and phone, so per-phone limits and taken e-mails never leak.
  const next = () => ++counter + Math.floor(Math.random() * 10_000) * 100
  const nextEmail = () => `person${next()}@example.com`
  const nextPhone = () => nanpTestPhone(`555${String(next()).padStart(7, '0')}`)

  async function invite(email = nextEmail(), position = 'Provider'): Promise<PersonnelInvitation> {
    const response = await t.request('/api/personnel', {
      method: 'POST',
      token: t.demo.adminToken,
      json: { email, first_name: 'Jordan', last_name: 'Lee', position, title: 'Dr.' },
    })
    expect(response.status, await response.clone().text()).toBe(201)
    return (await response.json()) as PersonnelInvitation
  }

  /** Gets a code for the phone and verifies it, as the registration form does. */
  async function verifyPhone(email: string, phone: string): Promise<string> {
    const sent = await t.request('/api/auth/get-code', {
      method: 'POST',
      json: { email, phone, countryCode: '+1' },
    })
    expect(sent.status, await sent.clone().text()).toBe(200)
    const { authyId } = (await sent.json()) as { authyId: string }
    await t.deliver()
    const [sms] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, `+1${phone}`)))
      .orderBy(desc(outbox.id))
      .limit(1)
    const verified = await t.request('/api/auth/verify-code', {
      method: 'POST',
      json: { authyId, phone, code: sms?.code },
    })
    expect(verified.status, await verified.clone().text()).toBe(200)
    return authyId
  }

  function payload(
    id: string,
    authyId: string,
    phone: string,
    extra: Partial<PersonnelRegisterPayloadInput> = {},
  ): PersonnelRegisterPayloadInput {
    return {
      id,
      title: 'Dr.',
      first_name: 'Jordan',
      last_name: 'Lee-Smith',
      email: 'someone.else@example.com',
      position: 'Staff',
      cell_phone: phone,
      country_code: '+1',
      password: 'Secret123',
      password_confirm: 'Secret123',
      authyId,
      username: 'ignored',
      ...extra,
    }
  }

  const register = (body: unknown) =>
    t.request('/api/auth/personnel/register', { method: 'POST', json: body })

  describe('POST /personnel', () => {
    it('creates a pending invitation for 14 days and e-mails its link', async () => {
      const email = nextEmail()
      const before = Date.now()
      const invitation = await invite(email.toUpperCase())
      expect(invitation).toMatchObject({
        email,
        first_name: 'Jordan',
        last_name: 'Lee',
        position: 'Provider',
        title: 'Dr.',
        status: 'pending',
      })
      // 32 random bytes in base64url: 256 bits, well above the 128 asked for.
      expect(invitation.id).toMatch(/^[\w-]{43}$/)
      const expires = new Date(invitation.expires_at).getTime()
      expect(expires - before).toBeGreaterThanOrEqual(14 * DAY_MS - 1000)
      expect(expires - Date.now()).toBeLessThanOrEqual(14 * DAY_MS)

      const outboxAnswer = await t.request('/api/dev/outbox')
      const { messages } = (await outboxAnswer.json()) as {
        messages: Array<{ channel: string; to: string; link?: string; subject?: string }>
      }
      const mail = messages.find((m) => m.channel === 'email' && m.to === email)
      expect(mail?.link).toBe(`http://localhost:3000/signup/personnel/${invitation.id}`)
      expect(mail?.link).toMatch(LINK)
      expect(mail?.subject).toBe('You are invited to join Glow Demo Med Spa on Glow Rewards')
    })

    it('is for Admins only: a staff member gets 403 and nothing is created', async () => {
      const email = nextEmail()
      const response = await t.request('/api/personnel', {
        method: 'POST',
        token: t.demo.staffToken,
        json: { email, first_name: 'Jordan', last_name: 'Lee', position: 'Staff' },
      })
      expect(response.status).toBe(403)
      expect(await response.json()).toMatchObject({
        error: {
          status: 403,
          name: 'ForbiddenError',
          message: 'Only an admin can manage personnel.',
        },
      })
      const rows = await t.db
        .select()
        .from(personnelInvitations)
        .where(eq(personnelInvitations.email, email))
      expect(rows).toEqual([])
    })

    it('needs a session', async () => {
      const response = await t.request('/api/personnel', {
        method: 'POST',
        json: { email: nextEmail(), first_name: 'Jordan', last_name: 'Lee', position: 'Staff' },
      })
      expect(response.status).toBe(401)
    })

    it('answers 409 when the e-mail already has an account or a pending invitation', async () => {
      const taken = await t.request('/api/personnel', {
        method: 'POST',
        token: t.demo.adminToken,
        json: {
          email: 'staff@example.com',
          first_name: 'Sam',
          last_name: 'Rivera',
          position: 'Staff',
        },
      })
      expect(taken.status).toBe(409)
      expect(await taken.json()).toMatchObject({
        error: { message: 'A person with this e-mail already has an account.' },
      })
      const email = nextEmail()
      await invite(email)
      const again = await t.request('/api/personnel', {
        method: 'POST',
        token: t.demo.adminToken,
        json: { email, first_name: 'Jordan', last_name: 'Lee', position: 'Staff' },
      })
      expect(again.status).toBe(409)
    })

    it('validates the body with the spec messages', async () => {
      const response = await t.request('/api/personnel', {
        method: 'POST',
        token: t.demo.adminToken,
        json: { email: 'not-an-email', first_name: 'J', last_name: 'Lee', position: 'Boss' },
      })
      expect(response.status).toBe(400)
      const body = (await response.json()) as {
        error: { details: { issues: Array<{ path: string; message: string }> } }
      }
      expect(body.error.details.issues).toEqual(
        expect.arrayContaining([
          { path: 'email', message: 'Please enter a valid email' },
          { path: 'first_name', message: 'First name should contain minimum 2 characters' },
          { path: 'position', message: 'Please fill position field' },
        ]),
      )
    })
  })

  describe('GET /personnel', () => {
    it("lists the practice's invitations with their status; ids only for an Admin", async () => {
      const invitation = await invite()
      const asAdmin = await t.request('/api/personnel', { token: t.demo.adminToken })
      expect(asAdmin.status).toBe(200)
      const list = (await asAdmin.json()) as PersonnelInvitation[]
      expect(list.find((row) => row.id === invitation.id)?.status).toBe('pending')
      expect(list.find((row) => row.email === DEMO_INVITEE.email)?.status).toBe('pending')

      const asStaff = await t.request('/api/personnel', { token: t.demo.staffToken })
      const staffList = (await asStaff.json()) as PersonnelInvitation[]
      expect(staffList.length).toBe(list.length)
      expect(staffList.every((row) => row.id === undefined)).toBe(true)

      const other = await createPracticeFixture(t.db)
      const otherList = await t.request('/api/personnel', { token: other.token })
      expect(await otherList.json()).toEqual([])
    })

    it('shows expired, revoked and used', async () => {
      const expired = await invite()
      const revoked = await invite()
      await t.db
        .update(personnelInvitations)
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where(eq(personnelInvitations.id, expired.id ?? ''))
      await t.request(`/api/personnel/${revoked.id}`, {
        method: 'DELETE',
        token: t.demo.adminToken,
      })
      const used = await invite()
      const phone = nextPhone()
      const authyId = await verifyPhone(used.email, phone)
      expect((await register(payload(used.id ?? '', authyId, phone))).status).toBe(200)

      const list = (await (
        await t.request('/api/personnel', { token: t.demo.adminToken })
      ).json()) as PersonnelInvitation[]
      const statusOf = (id?: string) => list.find((row) => row.id === id)?.status
      expect([statusOf(expired.id), statusOf(revoked.id), statusOf(used.id)]).toEqual([
        'expired',
        'revoked',
        'used',
      ])
    })
  })

  describe('GET /personnel/{id}', () => {
    it('previews a pending invitation without a session', async () => {
      const invitation = await invite(undefined, 'Staff')
      const response = await t.request(`/api/personnel/${invitation.id}`)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        first_name: 'Jordan',
        last_name: 'Lee',
        email: invitation.email,
        position: 'Staff',
        title: 'Dr.',
        practice_name: DEMO_PRACTICE_NAME,
      })
    })

    it.each(['no-such-invitation', 'x'.repeat(300), 'bad%20id'])(
      'answers 404 JSON for %s',
      async (id) => {
        const response = await t.request(`/api/personnel/${id}`)
        expect(response.status).toBe(404)
        expect(await response.json()).toMatchObject({
          error: { status: 404, name: 'NotFoundError' },
        })
      },
    )

    it('answers 410 once the invitation expired (clock moved past 14 days), naming who can send a new one', async () => {
      const invitation = await invite()
      t.setNow(new Date(Date.now() + 14 * DAY_MS + 60_000))
      try {
        const response = await t.request(`/api/personnel/${invitation.id}`)
        expect(response.status).toBe(410)
        expect(await response.json()).toEqual({
          error: {
            status: 410,
            name: 'GoneError',
            message: `This invitation has expired. Ask an Admin of ${DEMO_PRACTICE_NAME} to send you a new one.`,
            details: { reason: 'expired', practice_name: DEMO_PRACTICE_NAME },
          },
        })
      } finally {
        t.setNow(undefined)
      }
    })

    it('answers 410 "already been used" for a used invitation, and 404 for a revoked one', async () => {
      const used = await invite()
      const phone = nextPhone()
      const authyId = await verifyPhone(used.email, phone)
      expect((await register(payload(used.id ?? '', authyId, phone))).status).toBe(200)
      const response = await t.request(`/api/personnel/${used.id}`)
      expect(response.status).toBe(410)
      expect(await response.json()).toMatchObject({
        error: {
          message: 'This invitation has already been used',
          details: { reason: 'used', practice_name: DEMO_PRACTICE_NAME },
        },
      })

      const revoked = await invite()
      await t.request(`/api/personnel/${revoked.id}`, {
        method: 'DELETE',
        token: t.demo.adminToken,
      })
      expect((await t.request(`/api/personnel/${revoked.id}`)).status).toBe(404)
    })
  })

  describe('resend and revoke', () => {
    it('resend e-mails the link again and restarts the 14 days', async () => {
      const invitation = await invite()
      t.setNow(new Date(Date.now() + 10 * DAY_MS))
      try {
        const token = await mintToken(t.demo.admin, { now: new Date(Date.now() + 10 * DAY_MS) })
        const response = await t.request(`/api/personnel/${invitation.id}/resend`, {
          method: 'POST',
          token,
        })
        expect(response.status).toBe(200)
        const resent = (await response.json()) as PersonnelInvitation
        expect(new Date(resent.expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * DAY_MS)
        await t.deliver()
        const mails = await t.db
          .select()
          .from(outbox)
          .where(and(eq(outbox.channel, 'email'), eq(outbox.to, invitation.email)))
        expect(mails.map((m) => m.link)).toEqual([
          `http://localhost:3000/signup/personnel/${invitation.id}`,
          `http://localhost:3000/signup/personnel/${invitation.id}`,
        ])
      } finally {
        t.setNow(undefined)
      }
    })

    it(`resends one invitation at most ${INVITATION_RESEND_LIMIT.max} times an hour, then answers 429`, async () => {
      const invitation = await invite()
      const statuses: number[] = []
      for (let i = 0; i < INVITATION_RESEND_LIMIT.max + 2; i++) {
        const response = await t.request(`/api/personnel/${invitation.id}/resend`, {
          method: 'POST',
          token: t.demo.adminToken,
        })
        statuses.push(response.status)
        if (response.status === 429) {
          expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
            PERSONNEL_RESEND_TOO_SOON,
          )
          expect(Number(response.headers.get('Retry-After'))).toBeGreaterThan(0)
        }
      }
      expect(statuses).toEqual([...Array<number>(INVITATION_RESEND_LIMIT.max).fill(200), 429, 429])
      await t.deliver()
      const mails = await t.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.channel, 'email'), eq(outbox.to, invitation.email)))
      // The invitation itself and the resends allowed.
      expect(mails).toHaveLength(1 + INVITATION_RESEND_LIMIT.max)
    })

    it('revoke makes the link answer 404; a revoked invitation cannot be resent', async () => {
      const invitation = await invite()
      const revoked = await t.request(`/api/personnel/${invitation.id}`, {
        method: 'DELETE',
        token: t.demo.adminToken,
      })
      expect(revoked.status).toBe(200)
      expect(await revoked.json()).toMatchObject({ status: 'revoked' })
      expect((await t.request(`/api/personnel/${invitation.id}`)).status).toBe(404)
      const resend = await t.request(`/api/personnel/${invitation.id}/resend`, {
        method: 'POST',
        token: t.demo.adminToken,
      })
      expect(resend.status).toBe(409)
    })

    it('are for Admins of the same practice only', async () => {
      const invitation = await invite()
      const asStaff = await t.request(`/api/personnel/${invitation.id}`, {
        method: 'DELETE',
        token: t.demo.staffToken,
      })
      expect(asStaff.status).toBe(403)
      const other = await createPracticeFixture(t.db)
      const asOtherAdmin = await t.request(`/api/personnel/${invitation.id}/resend`, {
        method: 'POST',
        token: other.token,
      })
      // Another practice's invitation answers exactly as an unknown one.
      expect(asOtherAdmin.status).toBe(404)
      const asOtherBody = await asOtherAdmin.json()
      const unknown = await t.request('/api/personnel/unknown-id', {
        method: 'DELETE',
        token: t.demo.adminToken,
      })
      expect(unknown.status).toBe(404)
      expect(asOtherBody).toEqual(await unknown.json())
      expect((await t.request(`/api/personnel/${invitation.id}`)).status).toBe(200)
    })
  })

  describe('POST /auth/personnel/register', () => {
    it('registers the invited person in the inviting practice, then the link is spent', async () => {
      const invitation = await invite(undefined, 'Provider')
      const phone = nextPhone()
      const authyId = await verifyPhone(invitation.email, phone)
      const response = await register(payload(invitation.id ?? '', authyId, phone))
      expect(response.status, await response.clone().text()).toBe(200)
      const { user } = (await response.json()) as { user: Record<string, unknown> }
      // E-mail and position come from the invitation, whatever the body said.
      expect(user).toMatchObject({
        email: invitation.email,
        position: 'Provider',
        access_rights: 'Staff',
        practice_id: t.demo.practiceId,
        first_name: 'Jordan',
        last_name: 'Lee-Smith',
        title: 'Dr.',
      })
      expect(user).not.toHaveProperty('password_hash')

      const [row] = await t.db.select().from(users).where(eq(users.email, invitation.email))
      expect(row).toMatchObject({ cell_phone: phone, country_code: '+1', access_rights: 'Staff' })
      const [stored] = await t.db
        .select()
        .from(personnelInvitations)
        .where(eq(personnelInvitations.id, invitation.id ?? ''))
      expect(stored?.status).toBe('used')
      expect(stored?.used_at).toBeInstanceOf(Date)
      const [verification] = await t.db
        .select()
        .from(verificationCodes)
        .where(eq(verificationCodes.id, authyId))
      expect(verification?.used_at).toBeInstanceOf(Date)

      const signIn = await t.request('/api/auth/local', {
        method: 'POST',
        json: { identifier: invitation.email, password: 'Secret123' },
      })
      expect(signIn.status).toBe(200)

      expect((await t.request(`/api/personnel/${invitation.id}`)).status).toBe(410)
      const phone2 = nextPhone()
      const authyId2 = await verifyPhone(invitation.email, phone2)
      const again = await register(payload(invitation.id ?? '', authyId2, phone2))
      expect(again.status).toBe(404)
      expect(await again.json()).toMatchObject({
        error: { status: 404, message: 'This invitation link is not valid any more.' },
      })
    })

    it('answers 404 for an expired invitation (clock moved past 14 days)', async () => {
      const invitation = await invite()
      const phone = nextPhone()
      const authyId = await verifyPhone(invitation.email, phone)
      t.setNow(new Date(Date.now() + 15 * DAY_MS))
      try {
        const response = await register(payload(invitation.id ?? '', authyId, phone))
        expect(response.status).toBe(404)
      } finally {
        t.setNow(undefined)
      }
      const rows = await t.db.select().from(users).where(eq(users.email, invitation.email))
      expect(rows).toEqual([])
    })

    it('answers 404 for a revoked invitation', async () => {
      const invitation = await invite()
      await t.request(`/api/personnel/${invitation.id}`, {
        method: 'DELETE',
        token: t.demo.adminToken,
      })
      const phone = nextPhone()
      const authyId = await verifyPhone(invitation.email, phone)
      const response = await register(payload(invitation.id ?? '', authyId, phone))
      expect(response.status).toBe(404)
    })

    it('answers 400 when the phone was not verified, and nothing changes', async () => {
      const invitation = await invite()
      const phone = nextPhone()
      const sent = await t.request('/api/auth/get-code', {
        method: 'POST',
        json: { email: invitation.email, phone, countryCode: '+1' },
      })
      const { authyId } = (await sent.json()) as { authyId: string }
      const response = await register(payload(invitation.id ?? '', authyId, phone))
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        error: { message: VERIFICATION_MESSAGES.notVerified },
      })
      const verifiedOther = await verifyPhone(invitation.email, nextPhone())
      const wrongPhone = await register(payload(invitation.id ?? '', verifiedOther, phone))
      expect(wrongPhone.status).toBe(400)

      const [stored] = await t.db
        .select()
        .from(personnelInvitations)
        .where(eq(personnelInvitations.id, invitation.id ?? ''))
      expect(stored?.status).toBe('pending')
      expect(await t.db.select().from(users).where(eq(users.email, invitation.email))).toEqual([])
    })

    it('re-validates the fields with the domain rules', async () => {
      const invitation = await invite()
      const response = await register(
        payload(invitation.id ?? '', 'authy', '555', {
          first_name: 'J',
          password: 'weak',
          password_confirm: 'other',
        }),
      )
      expect(response.status).toBe(400)
      const body = (await response.json()) as {
        error: { details: { issues: Array<{ path: string; message: string }> } }
      }
      expect(body.error.details.issues.map((issue) => issue.path)).toEqual(
        expect.arrayContaining(['first_name', 'cell_phone', 'password']),
      )
    })

    it('a verified phone registers one account only', async () => {
      const first = await invite()
      const second = await invite()
      const phone = nextPhone()
      const authyId = await verifyPhone(first.email, phone)
      expect((await register(payload(first.id ?? '', authyId, phone))).status).toBe(200)
      const reuse = await register(payload(second.id ?? '', authyId, phone))
      expect(reuse.status).toBe(400)
    })
  })
})
