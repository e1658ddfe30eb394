import { and, desc, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { footerLinks } from '#domain/footer-links.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import type { PracticeAnswer } from '#domain/practice-settings.ts'
import { SELF_SERVICE_MESSAGES } from '#domain/self-service.ts'
import { PRACTICE_MESSAGES } from '#domain/sign-up/practice-details.ts'
import { outbox, practices, users } from '#server/db/schema.ts'
import { TEXAS_PRACTICE_DETAILS as TEXAS } from '#server/testing/api-journeys.ts'
import { useMember, useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

type Issues = {
  error: { message: string; details: { issues: { path: string; message: string }[] } }
}

describe.each(httpBackends())('the practice details and the phone change on $name', (backend) => {
  const t = useTestApp(backend)
  const manager = useMember(t, 'Manager')

  const read = async (token = t.demo.adminToken) => {
    const response = await t.request('/api/practice', { token })
    expect(response.status).toBe(200)
    return (await response.json()) as PracticeAnswer
  }
  const save = async (body: object, token = t.demo.adminToken) => {
    const response = await t.request('/api/practice', { method: 'PUT', token, json: body })
    return { status: response.status, body: (await response.json()) as unknown }
  }
  const issuesOf = (body: unknown) =>
    Object.fromEntries(
      (body as Issues).error.details.issues.map((issue) => [issue.path, issue.message]),
    )
  const lastEvent = async (action: string) => {
    const response = await t.request(`/api/audit?action=${action}`, { token: t.demo.adminToken })
    expect(response.status).toBe(200)
    const page = (await response.json()) as { data: { summary: string; details?: unknown }[] }
    return page.data[0]
  }

  it('saves the details for an Admin, answers them to every member and says so in the log', async () => {
    const saved = await save(TEXAS)
    expect(saved.status).toBe(200)
    expect(saved.body).toMatchObject({ practice_name: 'Glow Austin', practice_zip: '78701' })
    // Any member reads them (the footer and the header show them to everyone).
    expect(await read(t.demo.staffToken)).toMatchObject({
      practice_name: 'Glow Austin',
      office_name: 'Downtown',
      state: 'TX',
      footer_links: { about: '', privacy: '', support: '' },
    })
    const renamed = await save({ ...TEXAS, practice_name: 'Glow Austin Spa', city: 'Round Rock' })
    expect(renamed.status).toBe(200)
    const event = await lastEvent('practice.details_changed')
    expect(event?.summary).toMatch(/changed the practice details \(practice name, city\)\.$/)
    // A sign-in afterwards carries the new name for the header.
    const [row] = await t.db
      .select({ name: practices.practice_name })
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    expect(row?.name).toBe('Glow Austin Spa')
  })

  it('refuses a Manager and a Staff member with the sentence naming what is missing', async () => {
    const before = await read()
    for (const token of [manager.token, t.demo.staffToken]) {
      expect(await save({ ...TEXAS, practice_name: 'Not Mine' }, token)).toEqual({
        status: 403,
        body: expect.objectContaining({
          error: expect.objectContaining({ message: PERMISSION_REFUSALS['practice.settings'] }),
        }),
      })
    }
    expect((await read()).practice_name).toBe(before.practice_name)
  })

  it("checks the zip and the state against the country with the wizard's messages", async () => {
    const before = await read()
    const usWithPostalCode = await save({ ...TEXAS, practice_zip: 'K1A 0B1' })
    expect(usWithPostalCode.status).toBe(400)
    expect(issuesOf(usWithPostalCode.body)).toEqual({
      practice_zip: PRACTICE_MESSAGES.zip.pattern,
    })
    const canadaWithTexas = await save({ ...TEXAS, country: 'CA', practice_zip: 'K1A 0B1' })
    expect(issuesOf(canadaWithTexas.body)).toEqual({
      state: PRACTICE_MESSAGES.state.notInCountry,
    })
    const empty = await save({ ...TEXAS, practice_name: ' ', practice_email: 'nope' })
    expect(issuesOf(empty.body)).toMatchObject({
      practice_name: PRACTICE_MESSAGES.practiceName.required,
      practice_email: PRACTICE_MESSAGES.practiceEmail.pattern,
    })
    const ottawa = await save({ ...TEXAS, country: 'CA', state: 'ON', practice_zip: 'K1A 0B1' })
    expect(ottawa.status).toBe(200)
    expect(await read()).toMatchObject({ country: 'CA', state: 'ON', practice_zip: 'K1A 0B1' })
    expect((await save({ ...TEXAS, practice_name: before.practice_name })).status).toBe(200)
  })

  it('keeps the Nextech username and password write-only: never answered, kept when empty', async () => {
    const nextech = {
      client_id: 'client-42',
      username: 'glow-user',
      password: 'S3cret-Nextech!',
      nx_practice_id: 'NX-7',
    }
    // Without stored credentials an empty password is refused with the wizard's message.
    const missing = await save({
      ...TEXAS,
      e_record: 'nextech',
      nextech: { ...nextech, password: '' },
    })
    expect(issuesOf(missing.body)).toEqual({
      'nextech.password': PRACTICE_MESSAGES.nextech.password,
    })
    const saved = await save({ ...TEXAS, e_record: 'nextech', nextech })
    expect(saved.status).toBe(200)
    const answer = await read()
    expect(answer.nextech).toEqual({
      client_id: 'client-42',
      nx_practice_id: 'NX-7',
      username_set: true,
      password_set: true,
    })
    expect(JSON.stringify(answer)).not.toContain('S3cret')
    expect(JSON.stringify(answer)).not.toContain('glow-user')
    // Saving again with the secrets empty keeps them; the log names no value.
    const again = await save({
      ...TEXAS,
      e_record: 'nextech',
      nextech: { ...nextech, client_id: 'client-43', username: '', password: '' },
    })
    expect(again.status).toBe(200)
    const [row] = await t.db
      .select({ nextech: practices.nextech })
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    expect(JSON.stringify(row?.nextech)).not.toContain('S3cret')
    expect((await read()).nextech).toMatchObject({ client_id: 'client-43', password_set: true })
    const event = await lastEvent('practice.details_changed')
    expect(event?.summary).toMatch(/\(nextech client id\)\.$/)
    expect(JSON.stringify(event)).not.toContain('client-43')
    expect((await save(TEXAS)).status).toBe(200)
    expect((await read()).nextech).toBeNull()
  })

  it('saves footer links that open something real and refuses dead ones', async () => {
    const bad = await save({
      ...TEXAS,
      footer_links: {
        about: 'http://clinic.example.com',
        privacy: 'javascript:alert(1)',
        support: 'help',
      },
    })
    expect(Object.keys(issuesOf(bad.body))).toEqual([
      'footer_links.about',
      'footer_links.privacy',
      'footer_links.support',
    ])
    const links = {
      about: 'https://glowaustin.example.com/about',
      privacy: '',
      support: 'help@glowaustin.example.com',
    }
    expect((await save({ ...TEXAS, footer_links: links })).status).toBe(200)
    expect((await read(t.demo.staffToken)).footer_links).toEqual(links)
    expect(footerLinks(links).map((link) => link.href)).toEqual([
      'https://glowaustin.example.com/about',
      '/terms#privacy',
      '/terms',
      '/agreement',
      'mailto:help@glowaustin.example.com',
    ])
    expect(footerLinks(null).map((link) => link.href)).toEqual([
      '/about',
      '/terms#privacy',
      '/terms',
      '/agreement',
      'mailto:support@glowrewards.com',
    ])
    // Without a support link of its own, the practice's e-mail; the configured address without either.
    expect(footerLinks(null, 'help@glow.example', 'desk@clinic.example').at(-1)?.href).toBe(
      'mailto:desk@clinic.example',
    )
    expect(footerLinks(null, 'help@glow.example', '').at(-1)?.href).toBe('mailto:help@glow.example')
    expect((await save(TEXAS)).status).toBe(200)
  })

  describe("My Profile's phone change", () => {
    const phone = '2125550188'
    const path = () => `/api/users/${t.demo.staff.id}/phone`
    const token = () => t.demo.staffToken

    async function sendCode(to = phone) {
      const sent = await t.request(`${path()}/code`, {
        method: 'POST',
        token: token(),
        json: { phone: to, countryCode: '+1' },
      })
      expect(sent.status, await sent.clone().text()).toBe(200)
      const { authyId } = (await sent.json()) as { authyId: string }
      await t.deliver()
      const [sms] = await t.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.channel, 'sms'), eq(outbox.to, `+1${to}`)))
        .orderBy(desc(outbox.id))
        .limit(1)
      return { authyId, code: sms?.code ?? '' }
    }
    const change = (body: object) =>
      t.request(path(), { method: 'PUT', token: token(), json: { country_code: '+1', ...body } })

    it('refuses a phone without a verified code, and a code checked for another phone', async () => {
      const { authyId } = await sendCode()
      // Sent, never checked: not enough.
      const unverified = await change({ cell_phone: phone, authyId })
      expect(unverified.status).toBe(400)
      expect(((await unverified.json()) as Issues).error.message).toBe(
        SELF_SERVICE_MESSAGES.phoneNotVerified,
      )
      const guessed = await change({ cell_phone: phone, authyId: 'a'.repeat(43) })
      expect(guessed.status).toBe(400)
      const [row] = await t.db
        .select({ phone: users.cell_phone })
        .from(users)
        .where(eq(users.id, t.demo.staff.id))
      expect(row?.phone).not.toBe(phone)
    })

    it('saves the new phone once its code is verified, once, and logs it in words', async () => {
      t.setNow(new Date(Date.now() + 60_000))
      const { authyId, code } = await sendCode()
      const wrong = await t.request(`${path()}/verify`, {
        method: 'POST',
        token: token(),
        json: { authyId, phone, code: code === '000000' ? '111111' : '000000' },
      })
      expect(wrong.status).toBe(400)
      expect(((await wrong.json()) as Issues).error.message).toBe(
        'Incorrect Confirmation Code entered',
      )
      const verified = await t.request(`${path()}/verify`, {
        method: 'POST',
        token: token(),
        json: { authyId, phone, code },
      })
      expect(verified.status).toBe(200)
      // Verified for this phone: another phone cannot ride on it.
      expect((await change({ cell_phone: '3125550199', authyId })).status).toBe(400)
      const saved = await change({ cell_phone: phone, authyId })
      expect(saved.status, await saved.clone().text()).toBe(200)
      expect(await saved.json()).toMatchObject({ id: t.demo.staff.id, cell_phone: phone })
      const own = await t.request(`/api/users/${t.demo.staff.id}`, { token: token() })
      expect(await own.json()).toMatchObject({ cell_phone: phone })
      // The colleague's view of the member carries no phone.
      const seen = await t.request(`/api/users/${t.demo.staff.id}`, { token: t.demo.adminToken })
      expect(await seen.json()).not.toHaveProperty('cell_phone')
      // The verification is spent, and the same phone again is no change.
      const twice = await change({ cell_phone: phone, authyId })
      expect(((await twice.json()) as Issues).error.message).toBe(
        SELF_SERVICE_MESSAGES.phoneUnchanged,
      )
      const event = await lastEvent('user.phone_changed')
      expect(event?.summary).toMatch(/changed their phone number, verified by an SMS code\.$/)
      t.setNow(undefined)
    })

    it("refuses a colleague's phone change with the sentence saying why", async () => {
      const response = await t.request(`/api/users/${t.demo.admin.id}/phone/code`, {
        method: 'POST',
        token: token(),
        json: { phone, countryCode: '+1' },
      })
      expect(response.status).toBe(403)
      expect(((await response.json()) as Issues).error.message).toBe(
        SELF_SERVICE_MESSAGES.ownProfileOnly,
      )
    })
  })
})
