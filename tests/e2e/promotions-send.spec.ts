import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { APIRequestContext, Page } from '@playwright/test'
import { signUpPractice, valuesFor } from '#tests/paths/support/api.ts'
import {
  apiSignIn,
  axeViolations,
  expect,
  readOutbox,
  storeSession,
  test,
  waitForMessage,
} from './support/fixtures.ts'

// Issue 18, part 2: "Send to patients" end to end in Chromium against the real server.
// SHOTS_DIR=docs/screenshots/issue-18 refreshes the committed pictures; a plain run never rewrites them.
const SHOTS = process.env.SHOTS_DIR ?? '.tmp/shots/issue-18'
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const

type OutboxMail = Awaited<ReturnType<typeof readOutbox>>[number] & {
  headers?: Record<string, string>
}

/** Shoots the page at 1440 and 390 px, checking axe and that nothing scrolls sideways. */
async function shoot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true })
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport)
    await page.waitForTimeout(150)
    expect(await axeViolations(page), `axe on ${name} at ${viewport.width}`).toEqual([])
    const sideways = await page.evaluate(
      () => document.documentElement.scrollWidth > window.innerWidth + 1,
    )
    expect(sideways, `${name} scrolls sideways at ${viewport.width}`).toBe(false)
    await page.screenshot({ path: join(SHOTS, `${name}-${viewport.width}.png`), fullPage: true })
  }
  await page.setViewportSize(VIEWPORTS[0])
}

/** The e-mails of one subject in the outbox, newest first. */
async function mailsOf(request: APIRequestContext, subject: string): Promise<OutboxMail[]> {
  return (await readOutbox(request)).filter(
    (m): m is OutboxMail => m.channel === 'email' && m.subject === subject,
  )
}

test('a practice sends a live offer; a patient claims it from the e-mail, the desk redeems it, the funnel counts it, and a one-click unsubscribe stops the next send', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000)
  // A practice of its own, with a handful of patients, so that every count is exact.
  const slot = 18
  const values = valuesFor(slot)
  const adminEmail = `offers.${Date.now()}@example.com`
  await signUpPractice(request, adminEmail, slot)
  const session = await apiSignIn(request, adminEmail, values.clientDetails.password)
  const headers = { Authorization: `Bearer ${session.jwt}` }
  const tag = Date.now().toString(36)
  const people = [
    { first_name: 'Ada', email_subscription: true },
    { first_name: 'Bea', email_subscription: true },
    { first_name: 'Cy', email_subscription: true },
    { first_name: 'Dot', email_subscription: false },
  ]
  const patients: { id: number; first_name: string; email: string; phone: string }[] = []
  for (const [index, person] of people.entries()) {
    const email = `${person.first_name.toLowerCase()}.${tag}@patients.example`
    // +1 555 01xx xxxx: fictional North American numbers, one of their own per patient.
    const phone = `+1 555 01${String(Math.floor(Math.random() * 100_000)).padStart(5, '0')}`
    const created = await request.post('/api/patients', {
      headers,
      data: {
        first_name: person.first_name,
        last_name: `Sender${index}`,
        email,
        phone,
        email_subscription: person.email_subscription,
      },
    })
    expect(created.status(), await created.text()).toBe(201)
    const row = (await created.json()) as { id: number; phone: string }
    patients.push({ id: row.id, first_name: person.first_name, email, phone: row.phone })
  }

  // The practice's Admin creates the offer, publishes it and sends it, on the offer's page.
  await storeSession(page, session)
  await page.goto('/promotions')
  await page.getByRole('button', { name: 'New offer' }).click()
  const form = page.getByRole('dialog', { name: 'New offer' })
  await form.getByLabel('Title').fill('Spring peel')
  await form.getByLabel('Description').fill('Half off a peel this spring.')
  await form.getByLabel('Bonus points').fill('50')
  await form.getByRole('button', { name: 'Save draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Spring peel' })).toBeVisible()
  await page.getByRole('button', { name: 'Publish' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Publish' }).click()
  await expect(page.getByText('Live', { exact: true })).toBeVisible()
  await page.getByRole('button', { name: 'Send to patients' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Send to patients' }).click()
  await expect(page.getByText('The offer is on its way to 3 patients.')).toBeVisible()
  await shoot(page, 'offer-sent')

  // One e-mail per subscribed patient, none for the unsubscribed one.
  const subject = `${values.practiceDetails.practice_name}: Spring peel`
  await expect
    .poll(async () => (await mailsOf(request, subject)).map((m) => m.to).sort())
    .toEqual(
      patients
        .filter((p) => p.first_name !== 'Dot')
        .map((p) => p.email)
        .sort(),
    )
  const ada = patients[0]
  if (!ada) throw new Error('no patient')
  const mail = (await mailsOf(request, subject)).find((m) => m.to === ada.email)
  expect(mail?.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
  expect(mail?.text).toContain('Hello Ada,')

  // Ada opens her link: the offer, her practice, and "Claim offer".
  const link = new URL(mail?.link ?? '')
  const browser = page.context().browser()
  if (!browser) throw new Error('no browser')
  // The patient's own browser: no staff session.
  const patientPage = await (await browser.newContext()).newPage()
  await patientPage.goto(link.href)
  await expect(patientPage.getByRole('heading', { level: 2, name: 'Spring peel' })).toBeVisible()
  await expect(patientPage.getByText(values.practiceDetails.practice_name)).toBeVisible()
  await shoot(patientPage, 'offer-page')
  await patientPage.getByRole('button', { name: 'Claim offer' }).click()
  await expect(
    patientPage.getByText('You claimed this offer. Show this e-mail at your next visit.'),
  ).toBeVisible()
  await shoot(patientPage, 'offer-claimed')

  // At the desk: the patient's code by SMS, then the redemption of the claimed offer.
  const offerId = Number(new URL(page.url()).pathname.split('/').pop())
  const asked = new Date(Date.now() - 1000)
  const codeAnswer = await request.post(`/api/patients/${ada.id}/redemption-code`, { headers })
  expect(codeAnswer.ok(), await codeAnswer.text()).toBe(true)
  const { authyId } = (await codeAnswer.json()) as { authyId: string }
  const sms = await waitForMessage(request, 'sms', `+${ada.phone.replace(/\D/g, '')}`, {
    after: asked,
  })
  const redeemed = await request.put(`/api/promotions/redeemed/${offerId}`, {
    headers,
    data: {
      patient_id: ada.id,
      idempotencyKey: `e2e-${tag}`,
      verification: { authyId, code: sms.code },
    },
  })
  expect(redeemed.status(), await redeemed.text()).toBe(200)

  // The funnel on the offer's page: sent 3, claimed 1, redeemed 1.
  await page.reload()
  const figure = (label: string) =>
    page.getByText(label, { exact: true }).locator('xpath=following-sibling::*[1]')
  await expect(figure('Sent')).toHaveText('3')
  await expect(figure('Claimed')).toHaveText('1')
  await expect(figure('Redeemed')).toHaveText('1')

  // Bea's mail client unsubscribes in one click (RFC 8058), from her e-mail's header.
  const bea = patients[1]
  if (!bea) throw new Error('no patient')
  const beaMail = (await mailsOf(request, subject)).find((m) => m.to === bea.email)
  const oneClick = /<(http[^>]+\/api\/unsubscribe\/[^>]+)>/.exec(
    beaMail?.headers?.['List-Unsubscribe'] ?? '',
  )?.[1]
  expect(oneClick).toBeTruthy()
  const unsubscribed = await request.post(oneClick ?? '', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    data: beaMail?.headers?.['List-Unsubscribe-Post'] ?? '',
  })
  expect(unsubscribed.status()).toBe(200)

  // The next send skips her (and still Dot).
  const next = await request.post('/api/promotions', {
    headers,
    data: { title: 'Summer glow', bonus_points: 20 },
  })
  const { id: nextId } = (await next.json()) as { id: number }
  await request.post(`/api/promotions/${nextId}/publish`, { headers })
  const sent = await request.post(`/api/promotions/${nextId}/send`, { headers })
  expect(((await sent.json()) as { queued: number }).queued).toBe(2)
  const nextSubject = `${values.practiceDetails.practice_name}: Summer glow`
  await expect
    .poll(async () => (await mailsOf(request, nextSubject)).map((m) => m.to).sort())
    .toEqual([ada.email, patients[2]?.email].sort())

  // The unsubscribe page a patient opens from the e-mail's text.
  const unsubscribeLink =
    /<(http[^>]+\/unsubscribe\/[^>]+)>$/.exec(mail?.headers?.['List-Unsubscribe'] ?? '')?.[1] ?? ''
  expect(mail?.text).toContain(`Unsubscribe: ${unsubscribeLink}`)
  await patientPage.goto(unsubscribeLink)
  await expect(patientPage.getByText('You are successfully unsubscribed!')).toBeVisible()
  await shoot(patientPage, 'unsubscribe')
})
