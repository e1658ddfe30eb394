import { and, eq, like } from 'drizzle-orm'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import { OfferAnswerSchema, PromotionSendAnswerSchema } from '#domain/offers.ts'
import { auditEvents, outbox, patients, practices, promotionSends } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { messageOf, useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, type PatientValues, testBackends } from '#server/testing/test-app.ts'

describe.each(testBackends())('sending offers and the public offer page on $name', (backend) => {
  const t = useTestApp(backend)
  const practice = usePracticeFixture(t, { name: 'Lumen & Co' })
  const manager = useMember(t, 'Manager', practice)
  const staff = useMember(t, 'Staff', practice)
  const domain = `send-${randomToken(4).toLowerCase()}.example`

  const addPatient = (first: string, values: Partial<PatientValues> = {}) =>
    insertPatient(t.db, {
      practice_id: practice.practiceId,
      first_name: first,
      last_name: 'Sender',
      email: `${first.toLowerCase()}@${domain}`,
      ...values,
    })

  async function liveOffer(fields: Record<string, unknown> = {}): Promise<number> {
    const created = await t.request('/api/promotions', {
      method: 'POST',
      token: manager.token,
      json: {
        title: 'Spring <Glow>',
        description: 'Half off a peel & a mask.',
        bonus_points: 50,
        ends_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        ...fields,
      },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    const published = await t.request(`/api/promotions/${id}/publish`, {
      method: 'POST',
      token: manager.token,
    })
    expect(published.status).toBe(200)
    return id
  }

  const send = (id: number, token = manager.token) =>
    t.request(`/api/promotions/${id}/send`, { method: 'POST', token })

  const mailsOf = (subject: string) =>
    t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.subject, subject), like(outbox.to, `%@${domain}`)))

  const tokenFrom = (link: string | null) => new URL(link ?? '').pathname.split('/').pop() ?? ''

  beforeAll(async () => {
    // The fixture's own patient takes part too: give it this test's domain.
    await t.db
      .update(patients)
      .set({ email: `fixture@${domain}` })
      .where(eq(patients.id, practice.patientId))
  })

  it('queues one e-mail per subscribed, non-archived patient with an e-mail, with a personal link and the unsubscribe headers', async () => {
    const ada = await addPatient('Ada')
    const bo = await addPatient('Bo')
    await addPatient('Quiet', { email_subscription: false })
    await addPatient('Gone', { archived_at: new Date() })
    await addPatient('Nomail', { email: null })
    const id = await liveOffer()

    const response = await send(id)
    expect(response.status).toBe(200)
    const answer = v.parse(PromotionSendAnswerSchema, await response.json())
    expect(answer.queued).toBe(3)
    expect(answer.funnel.sent).toBe(3)
    await t.deliver()

    const mails = await mailsOf('Lumen & Co: Spring <Glow>')
    expect(mails.map((m) => m.to).sort()).toEqual([
      `ada@${domain}`,
      `bo@${domain}`,
      `fixture@${domain}`,
    ])
    const adaMail = mails.find((m) => m.to === `ada@${domain}`)
    expect(adaMail?.text).toContain('Hello Ada,')
    expect(adaMail?.text).toContain('Half off a peel & a mask.')
    expect(adaMail?.link).toMatch(/^http:\/\/localhost:3000\/offers\/[\w-]{40,}$/)
    expect(adaMail?.text).toContain(`Claim offer: ${adaMail?.link}`)
    expect(adaMail?.html).toContain('Spring &lt;Glow&gt;')
    expect(adaMail?.html).toContain('Half off a peel &amp; a mask.')
    expect(adaMail?.html).toContain(`href="${adaMail?.link}"`)
    expect(adaMail?.headers).toEqual({
      'List-Unsubscribe': `<http://localhost:3000/api/unsubscribe/${ada.unsubscribe_id}>, <http://localhost:3000/unsubscribe/${ada.unsubscribe_id}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    // Every link is its own: 256 random bits each.
    const tokens = mails.map((m) => tokenFrom(m.link))
    expect(new Set(tokens).size).toBe(3)
    const rows = await t.db.select().from(promotionSends).where(eq(promotionSends.promotion_id, id))
    expect(rows.map((r) => r.token).sort()).toEqual([...tokens].sort())
    expect(rows.every((r) => r.sent_at !== null)).toBe(true)

    const [audited] = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'promotion.sent'))
    expect(audited?.details).toMatchObject({ promotion_id: id, sent: 3 })

    // Sending again reaches only patients not sent it yet.
    expect(v.parse(PromotionSendAnswerSchema, await (await send(id)).json()).queued).toBe(0)
    await addPatient('Cleo')
    const again = v.parse(PromotionSendAnswerSchema, await (await send(id)).json())
    expect(again.queued).toBe(1)
    expect(again.funnel.sent).toBe(4)
    expect(bo.id).toBeGreaterThan(0)
  })

  it('refuses an offer that is not live, and a Staff member, saying why', async () => {
    const draft = await t.request('/api/promotions', {
      method: 'POST',
      token: manager.token,
      json: { title: 'Not yet' },
    })
    const { id } = (await draft.json()) as { id: number }
    const refused = await send(id)
    expect(refused.status).toBe(409)
    expect(await messageOf(refused)).toBe('Only a live offer can be sent to patients.')
    const byStaff = await send(id, staff.token)
    expect(byStaff.status).toBe(403)
    expect(await messageOf(byStaff)).toBe(
      'Only a manager or an admin can create, change or send promotions.',
    )
    expect((await send(999_999)).status).toBe(404)
  })

  it('names the value of an offer with value in its e-mail (HTML and text), on its page and after the claim', async () => {
    await addPatient('Val')
    const id = await liveOffer({ title: 'Fifty off', bonus_points: 0, discount_cents: 5000 })
    await send(id)
    await t.deliver()
    const [mail] = (await mailsOf('Lumen & Co: Fifty off')).filter((m) => m.to === `val@${domain}`)
    expect(mail?.text).toContain('$50.00 off any procedure at your visit.')
    expect(mail?.html).toContain('$50.00 off any procedure at your visit.')
    const token = tokenFrom(mail?.link ?? null)
    const shown = v.parse(OfferAnswerSchema, await (await t.request(`/api/offers/${token}`)).json())
    expect(shown.offer.value).toBe('$50.00 off any procedure')
    const page = await (await t.request(`/offers/${token}`)).text()
    expect(page).toContain('$50.00 off any procedure · Free')
    const claimed = v.parse(
      OfferAnswerSchema,
      await (await t.request(`/api/offers/${token}/claim`, { method: 'POST' })).json(),
    )
    expect(claimed).toMatchObject({
      state: 'claimed',
      offer: { value: '$50.00 off any procedure' },
    })
    expect(await (await t.request(`/offers/${token}`)).text()).toContain('$50.00 off any procedure')
  })

  it('shows the offer of a link and claims it once for its patient; the funnel counts the claim', async () => {
    await addPatient('Dee')
    const id = await liveOffer({ title: 'Claim me', points_cost: 0, bonus_points: 20 })
    await send(id)
    await t.deliver()
    const [mail] = (await mailsOf('Lumen & Co: Claim me')).filter((m) => m.to === `dee@${domain}`)
    const token = tokenFrom(mail?.link ?? null)

    const shown = await t.request(`/api/offers/${token}`)
    expect(shown.status).toBe(200)
    const offer = v.parse(OfferAnswerSchema, await shown.json())
    expect(offer).toMatchObject({
      practice: { name: 'Lumen & Co', logo: null },
      patient: { first_name: 'Dee' },
      offer: { title: 'Claim me', points_cost: 0, bonus_points: 20 },
      state: 'open',
      reason: null,
    })

    const claim = () => t.request(`/api/offers/${token}/claim`, { method: 'POST' })
    const claimed = v.parse(OfferAnswerSchema, await (await claim()).json())
    expect(claimed.state).toBe('claimed')
    // Again (a second click, another tab): the same answer, no second claim.
    expect(v.parse(OfferAnswerSchema, await (await claim()).json()).state).toBe('claimed')
    const detail = await t.request(`/api/promotions/${id}`, { token: manager.token })
    const { funnel } = (await detail.json()) as { funnel: { sent: number; claimed: number } }
    expect(funnel.claimed).toBe(1)
    expect(funnel.sent).toBeGreaterThanOrEqual(1)
    // On record once, with no staff member: the patient claimed it.
    const recorded = (
      await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'promotion.claimed'))
    ).filter((event) => (event.details as { promotion_id?: number }).promotion_id === id)
    expect(recorded.map((event) => event.user_id)).toEqual([null])

    // Ended: the page says so and a claim is refused with the reason.
    const other = (await mailsOf('Lumen & Co: Claim me')).find((m) => m.to !== `dee@${domain}`)
    await t.request(`/api/promotions/${id}/end`, { method: 'POST', token: manager.token })
    const late = tokenFrom(other?.link ?? null)
    const endedView = v.parse(
      OfferAnswerSchema,
      await (await t.request(`/api/offers/${late}`)).json(),
    )
    expect(endedView).toMatchObject({ state: 'ended', reason: 'This offer has ended.' })
    const refused = await t.request(`/api/offers/${late}/claim`, { method: 'POST' })
    expect(refused.status).toBe(409)
    expect(await messageOf(refused)).toBe('This offer has ended.')
  })

  it('answers an unknown or malformed link with 404 and a sentence', async () => {
    for (const token of [randomToken(), 'short']) {
      const response = await t.request(`/api/offers/${token}`)
      expect(response.status).toBe(404)
      expect(await messageOf(response)).toBe('This offer link is not valid.')
      expect((await t.request(`/api/offers/${token}/claim`, { method: 'POST' })).status).toBe(404)
    }
  })

  it('skips a patient who unsubscribed in one click from the e-mail header on the next send', async () => {
    const eve = await addPatient('Eve')
    const first = await liveOffer({ title: 'First' })
    await send(first)
    await t.deliver()
    const [mail] = (await mailsOf('Lumen & Co: First')).filter((m) => m.to === `eve@${domain}`)
    const header = mail?.headers['List-Unsubscribe'] ?? ''
    const oneClick = /<(http[^>]+\/api\/unsubscribe\/[^>]+)>/.exec(header)?.[1] ?? ''
    const unsubscribed = await t.request(new URL(oneClick).pathname, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: mail?.headers['List-Unsubscribe-Post'] ?? '',
    })
    expect(unsubscribed.status).toBe(200)
    const [row] = await t.db.select().from(patients).where(eq(patients.id, eve.id))
    expect(row?.email_subscription).toBe(false)

    const second = await liveOffer({ title: 'Second' })
    await send(second)
    await t.deliver()
    const secondMails = await mailsOf('Lumen & Co: Second')
    expect(secondMails.length).toBeGreaterThan(0)
    expect(secondMails.map((m) => m.to)).not.toContain(`eve@${domain}`)
  })

  it("carries the practice's name, postal address and logo in both parts of an offer e-mail (CAN-SPAM)", async () => {
    await t.db
      .update(practices)
      .set({
        practice_address: '12 Main Street',
        practice_address_2: 'Suite 4',
        city: 'Springfield',
        state: 'IL',
        practice_zip: '62704',
        image_path: '/api/upload/files/7/logo-key',
      })
      .where(eq(practices.id, practice.practiceId))
    try {
      await addPatient('Cora')
      const id = await liveOffer({ title: 'Address' })
      expect((await send(id)).status).toBe(200)
      await t.deliver()
      const [mail] = (await mailsOf('Lumen & Co: Address')).filter((m) => m.to === `cora@${domain}`)
      const address = '12 Main Street, Suite 4, Springfield, IL 62704'
      const logo = 'http://localhost:3000/api/upload/files/7/logo-key'
      // Once, the e-mail named the practice only: no address, no logo.
      expect(mail?.text).toContain(`Lumen & Co\n${address}\nLogo: ${logo}`)
      expect(mail?.html).toContain(`Lumen &amp; Co<br/>${address}`)
      expect(mail?.html).toContain(`<img src="${logo}" alt="Lumen &amp; Co logo"`)
    } finally {
      await t.db
        .update(practices)
        .set({
          practice_address: null,
          practice_address_2: null,
          city: null,
          state: null,
          practice_zip: null,
          image_path: null,
        })
        .where(eq(practices.id, practice.practiceId))
    }
  })
})
