import { and, eq, like } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { outbox, patientPromotions, patients } from '#server/db/schema.ts'
import { randomToken } from '#server/lib/random.ts'
import { CONTENT_SECURITY_POLICY } from '#server/security/headers.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { httpBackends, insertPatient } from '#server/testing/test-app.ts'
import { UNSUBSCRIBE_SCRIPT_PATH } from './page-routes.ts'

/** The visible text of a page: tags dropped, entities of our escaping read back, spaces folded. */
function textOf(html: string): string {
  return html
    .replace(/<(style|script|noscript)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * Checks that two answers are the same but for the link's own token, which a page repeats (its
 * forms point back at it): the same status, headers' media type and page.
 */
async function expectAlike(real: Response, realId: string, other: Response, otherId: string) {
  expect(other.status).toBe(real.status)
  expect(other.headers.get('Content-Type')).toBe(real.headers.get('Content-Type'))
  const realPage = (await real.text()).replaceAll(realId, 'TOKEN')
  const otherPage = (await other.text()).replaceAll(otherId, 'TOKEN')
  expect(otherPage).toBe(realPage)
}

describe.each(httpBackends())('the patient pages, rendered by the server, on $name', (backend) => {
  const t = useTestApp(backend)
  const practice = usePracticeFixture(t, { name: 'Lumen & <Co>' })
  const manager = useMember(t, 'Manager', practice)
  const domain = `pages-${randomToken(4).toLowerCase()}.example`

  const addPatient = (first: string) =>
    insertPatient(t.db, {
      practice_id: practice.practiceId,
      first_name: first,
      last_name: 'Reader',
      email: `${first.toLowerCase()}@${domain}`,
    })

  /** Publishes an offer, sends it, delivers the queue: the personal link's token of `first`. */
  async function sentOffer(first: string, fields: Record<string, unknown>) {
    const patient = await addPatient(first)
    const created = await t.request('/api/promotions', {
      method: 'POST',
      token: manager.token,
      json: { ends_at: '2099-03-01T12:00:00.000Z', ...fields },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    await t.request(`/api/promotions/${id}/publish`, { method: 'POST', token: manager.token })
    expect(
      (await t.request(`/api/promotions/${id}/send`, { method: 'POST', token: manager.token }))
        .status,
    ).toBe(200)
    await t.deliver()
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.to, `${first.toLowerCase()}@${domain}`), like(outbox.subject, '%')))
    const token = new URL(mail?.link ?? '').pathname.split('/').pop() ?? ''
    return { id, token, patient }
  }

  it('answers the offer page as a whole document: the offer, its practice and its terms, escaped, with no script', async () => {
    const { token } = await sentOffer('Ada', {
      title: 'Spring <Glow>',
      description: 'Half off a peel\n& a mask.',
      points_cost: 200,
      bonus_points: 50,
    })
    const response = await t.request(`/offers/${token}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8')
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    expect(response.headers.get('Content-Security-Policy')).toBe(CONTENT_SECURITY_POLICY)
    const html = await response.text()
    expect(html).toContain('<title>Your offer – Glow Rewards</title>')
    expect(html).not.toContain('<Glow>')
    expect(html).not.toContain('<script')
    expect(textOf(html)).toContain(
      'Your offer An offer from your practice, sent to you by e-mail. Claim it here, then show the e-mail at your next visit. Lumen & <Co> Spring <Glow> Half off a peel & a mask. Costs 200 points · earns 50 points · ends March 1, 2099 Claim offer',
    )
    expect(html).toContain(`<form method="post" action="/offers/${token}">`)
  })

  it('claims the offer from its form once, sends the browser back to the page, and shows it claimed', async () => {
    const { id, token, patient } = await sentOffer('Bo', { title: 'Claim me', bonus_points: 20 })
    const claim = () => t.request(`/offers/${token}`, { method: 'POST' })
    const first = await claim()
    expect(first.status).toBe(303)
    expect(first.headers.get('Location')).toBe(`/offers/${token}`)
    // A second press (another tab, a reload of the form): the same page, no second claim.
    expect((await claim()).status).toBe(303)
    const page = textOf(await (await t.request(`/offers/${token}`)).text())
    expect(page).toContain('You claimed this offer. Show this e-mail at your next visit.')
    expect(page).not.toContain('Claim offer')
    const claims = await t.db
      .select()
      .from(patientPromotions)
      .where(
        and(eq(patientPromotions.patient_id, patient.id), eq(patientPromotions.promotion_id, id)),
      )
    expect(claims).toHaveLength(1)
    expect(claims[0]?.status).toBe('claimed')
  })

  it('shows why an ended offer cannot be claimed, on the page and when its form is sent', async () => {
    const { id, token } = await sentOffer('Cy', { title: 'Too late' })
    await t.request(`/api/promotions/${id}/end`, { method: 'POST', token: manager.token })
    const shown = textOf(await (await t.request(`/offers/${token}`)).text())
    expect(shown).toContain('Too late')
    expect(shown).toContain('This offer has ended.')
    expect(shown).not.toContain('Claim offer')
    const refused = await t.request(`/offers/${token}`, { method: 'POST' })
    expect(refused.status).toBe(409)
    expect(textOf(await refused.text())).toContain('This offer has ended.')
  })

  it('answers an unknown or malformed offer link with 404 and a sentence, not a blank page', async () => {
    for (const token of [randomToken(), 'short', '<b>x</b>']) {
      for (const method of ['GET', 'POST']) {
        const response = await t.request(`/offers/${encodeURIComponent(token)}`, { method })
        expect(response.status).toBe(404)
        const html = await response.text()
        expect(html).not.toContain('<b>x</b>')
        expect(textOf(html)).toContain('Your offer')
        expect(textOf(html)).toContain('This offer link is not valid.')
      }
    }
  })

  it('answers the unsubscribe page with its text, a waiting status line and one script of our own', async () => {
    const response = await t.request('/unsubscribe/some-link-"><b>')
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const html = await response.text()
    expect(html).toContain('<title>Unsubscribe – Glow Rewards</title>')
    expect(html).toContain('data-link="some-link-&quot;&gt;&lt;b&gt;"')
    expect(html.match(/<script[^>]*>/g)).toEqual([
      `<script src="${UNSUBSCRIBE_SCRIPT_PATH}" defer>`,
    ])
    expect(textOf(html)).toContain(
      'Unsubscribe This link stops the marketing e-mails of the practice that sent it: its offers, points reminders and points statements. Please wait...',
    )
    // The outcomes are there for the script to show, hidden until then.
    expect(html).toMatch(/data-outcome="done" hidden>[^\n]*You are successfully unsubscribed!/)

    const script = await t.request(UNSUBSCRIBE_SCRIPT_PATH)
    expect(script.status).toBe(200)
    expect(script.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    expect(await script.text()).toContain('/api/patients/unsubscribe/')
  })

  it('unsubscribes from the form a browser without scripts sends, and says so', async () => {
    const patient = await addPatient('Dee')
    const done = await t.request(`/unsubscribe/${patient.unsubscribe_id}`, { method: 'POST' })
    expect(done.status).toBe(200)
    expect(textOf(await done.text())).toContain(
      'You are successfully unsubscribed! You will no longer receive marketing e-mails from this practice.',
    )
    const [row] = await t.db
      .select({ email_subscription: patients.email_subscription })
      .from(patients)
      .where(eq(patients.id, patient.id))
    expect(row?.email_subscription).toBe(false)

    // A link that names nobody gets the very page a real one gets.
    const other = await addPatient('Dan')
    const real = await t.request(`/unsubscribe/${other.unsubscribe_id}`, { method: 'POST' })
    const unknownId = randomToken()
    const unknown = await t.request(`/unsubscribe/${unknownId}`, { method: 'POST' })
    await expectAlike(real, other.unsubscribe_id, unknown, unknownId)
    // Only a link no patient can have (its shape is public) is refused.
    const malformed = await t.request('/unsubscribe/not-a-link', { method: 'POST' })
    expect(malformed.status).toBe(404)
    expect(textOf(await malformed.text())).toContain(
      'This unsubscribe link is not valid or has expired.',
    )
  })

  it('keeps the spec\'s unsubscribe and offers "Subscribe again", which subscribes the patient once and logs it', async () => {
    const patient = await addPatient('Ria')
    // The spec's call, as the page's script sends it.
    const unsubscribed = await t.request(`/api/patients/unsubscribe/${patient.unsubscribe_id}`, {
      method: 'PUT',
      json: { email_subscription: false },
    })
    expect(unsubscribed.status).toBe(200)
    const subscription = async () =>
      (
        await t.db
          .select({ email_subscription: patients.email_subscription })
          .from(patients)
          .where(eq(patients.id, patient.id))
      )[0]?.email_subscription
    expect(await subscription()).toBe(false)
    // The page shows the way back with the outcome "unsubscribed" (hidden until the script says).
    const pageHtml = await (await t.request(`/unsubscribe/${patient.unsubscribe_id}`)).text()
    expect(pageHtml).toContain(
      `<form method="post" action="/unsubscribe/${patient.unsubscribe_id}/subscribe"><button type="submit">Subscribe again</button></form>`,
    )
    const noScript = await t.request(`/unsubscribe/${patient.unsubscribe_id}`, { method: 'POST' })
    expect(await noScript.text()).toContain('Subscribe again</button>')

    const again = await t.request(`/unsubscribe/${patient.unsubscribe_id}/subscribe`, {
      method: 'POST',
    })
    expect(again.status).toBe(200)
    expect(textOf(await again.text())).toContain(
      "You are subscribed again! You will receive this practice's e-mails again. Unsubscribe",
    )
    expect(await subscription()).toBe(true)
    // Idempotent: pressed twice, still subscribed, and logged once.
    const twice = await t.request(`/unsubscribe/${patient.unsubscribe_id}/subscribe`, {
      method: 'POST',
    })
    expect(twice.status).toBe(200)
    expect(await subscription()).toBe(true)
    const log = await t.request('/api/audit?action=patient.resubscribed', { token: practice.token })
    expect(log.status).toBe(200)
    const { data } = (await log.json()) as {
      data: { summary: string; actor: unknown; patient_id: number | null }[]
    }
    expect(data).toEqual([
      expect.objectContaining({
        summary: "Ria Reader subscribed again to the practice's e-mails from the unsubscribe page.",
        actor: null,
        patient_id: patient.id,
      }),
    ])

    // A link that names nobody gets the page a real one gets, and logs nothing.
    const real = await t.request(`/unsubscribe/${patient.unsubscribe_id}/subscribe`, {
      method: 'POST',
    })
    const unknownId = randomToken()
    const unknown = await t.request(`/unsubscribe/${unknownId}/subscribe`, { method: 'POST' })
    await expectAlike(real, patient.unsubscribe_id, unknown, unknownId)
    const after = await t.request('/api/audit?action=patient.resubscribed', {
      token: practice.token,
    })
    expect(((await after.json()) as { data: unknown[] }).data).toHaveLength(1)
    const malformed = await t.request('/unsubscribe/not-a-link/subscribe', { method: 'POST' })
    expect(malformed.status).toBe(404)
    expect(textOf(await malformed.text())).toContain(
      'This unsubscribe link is not valid or has expired.',
    )
  })
})
