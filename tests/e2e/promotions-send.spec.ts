import type { APIRequestContext } from '@playwright/test'
import { signUpPractice, valuesFor } from '#tests/paths/support/api.ts'
import { apiSignIn, expect, openAs, readOutbox, test, waitForMessage } from './support/fixtures.ts'
import { registerColleague } from './support/practice.ts'
import { screens } from './support/screens.ts'
import { drawnLogo } from './support/uploads.ts'

// Part 2: "Send to patients" end to end in Chromium against the real server.

type OutboxMail = Awaited<ReturnType<typeof readOutbox>>[number] & {
  headers?: Record<string, string>
}

const shoot = screens('issue-18')

/** The e-mails of one subject in the outbox, newest first. */
async function mailsOf(request: APIRequestContext, subject: string): Promise<OutboxMail[]> {
  return (await readOutbox(request)).filter(
    (m): m is OutboxMail => m.channel === 'email' && m.subject === subject,
  )
}

test('a Manager sends a live offer; a patient claims it from the e-mail, the desk redeems it at checkout, the funnel counts it, and a one-click unsubscribe stops the next send', async ({
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

  // The desk's catalogue: one procedure to check out.
  const procedure = await request.post('/api/procedures', {
    headers,
    data: { name: 'Glow peel', price: 15_000 },
  })
  expect(procedure.status(), await procedure.text()).toBe(201)

  // The Admin invites a colleague and makes them Manager; the Manager does the rest.
  const colleague = await registerColleague(request, session.jwt, 8, 'Morgan', 'Reyes')
  const promoted = await request.put(`/api/users/${colleague.id}/role`, {
    headers,
    data: { access_rights: 'Manager' },
  })
  expect(promoted.status(), await promoted.text()).toBe(200)
  const manager = await apiSignIn(request, colleague.email, colleague.password, { fresh: true })
  const managerHeaders = { Authorization: `Bearer ${manager.jwt}` }
  const who = await request.get(`/api/users/${colleague.id}`, { headers: managerHeaders })
  expect(((await who.json()) as { access_rights?: string }).access_rights).toBe('Manager')

  // The Manager creates the offer, publishes it and sends it, on the offer's page.
  await openAs(page, manager, '/promotions')
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

  // The practice's logo is a wide one, as many are: 360 × 90 px.
  const wideLogo = await drawnLogo(page, {
    width: 360,
    height: 90,
    background: '#0e7490',
    name: { text: 'Wide Logo', colour: '#ffffff', font: 'bold 40px sans-serif', x: 40, y: 60 },
  })
  const uploadedLogo = await request.post('/api/upload/files', {
    headers,
    multipart: {
      file: { name: 'wide.png', mimeType: 'image/png', buffer: wideLogo },
      purpose: 'logo',
    },
  })
  expect(uploadedLogo.status(), await uploadedLogo.text()).toBe(201)
  const linkedLogo = await request.put('/api/practice/logo', {
    headers,
    data: { upload_id: ((await uploadedLogo.json()) as { id: number }).id },
  })
  expect(linkedLogo.status(), await linkedLogo.text()).toBe(200)

  // Ada opens her link: the offer, her practice, and "Claim offer".
  const link = new URL(mail?.link ?? '')
  const browser = page.context().browser()
  if (!browser) throw new Error('no browser')
  // The patient's own browser: no staff session.
  const patientPage = await (await browser.newContext()).newPage()
  const scripts: string[] = []
  patientPage.on('request', (sent) => {
    if (sent.resourceType() === 'script') scripts.push(sent.url())
  })
  await patientPage.goto(link.href)
  await expect(patientPage.getByRole('heading', { level: 2, name: 'Spring peel' })).toBeVisible()
  await expect(patientPage.getByText(values.practiceDetails.practice_name)).toBeVisible()
  // The wide logo keeps its shape within a sensible height, instead of a 40 × 40 square.
  const practiceLogo = patientPage.locator('.practice img')
  await expect
    .poll(() =>
      practiceLogo.evaluate((element) => {
        const img = element as HTMLImageElement
        const box = img.getBoundingClientRect()
        return img.complete && img.naturalWidth > 0
          ? { ratio: Math.round((box.width / box.height) * 10) / 10, height: box.height }
          : null
      }),
    )
    .toEqual({ ratio: 4, height: 50 })
  await shoot(patientPage, 'offer-page')
  await patientPage.getByRole('button', { name: 'Claim offer' }).click()
  await expect(
    patientPage.getByText('You claimed this offer. Show this e-mail at your next visit.'),
  ).toBeVisible()
  await shoot(patientPage, 'offer-claimed')
  // The server's page and its form: no script at all on a patient's phone.
  expect(scripts).toEqual([])

  // At the desk: from Ada's profile to the checkout, her claimed offer as the redemption, her
  // code by SMS, confirm.
  const offerUrl = page.url()
  await page.goto(`/patients/${ada.id}`)
  await page.getByRole('link', { name: 'Redeem at checkout' }).click()
  await expect(page).toHaveURL(new RegExp(`/checkout\\?patientId=${ada.id}`))
  await expect(page.getByText(`Patient: Ada Sender0`)).toBeVisible()
  await page.getByRole('combobox', { name: 'Add a procedure' }).click()
  await page.getByRole('option', { name: /^Glow peel/ }).click()
  await page.getByRole('button', { name: 'See points' }).click()
  await page.getByRole('radio', { name: /^Spring peel/ }).check()
  await page.getByRole('button', { name: 'Continue' }).click()
  await expect(page.getByRole('heading', { name: "The patient's consent" })).toBeVisible()
  const asked = new Date(Date.now() - 1000)
  await page.getByRole('button', { name: 'Get code' }).click()
  const sms = await waitForMessage(request, 'sms', `+${ada.phone.replace(/\D/g, '')}`, {
    after: asked,
  })
  const code = sms.code ?? /\b(\d{6})\b/.exec(sms.text)?.[1] ?? ''
  expect(code).toMatch(/^\d{6}$/)
  // The code is checked as it is typed; the right one leads on to Confirm.
  await page.getByLabel('SMS code').fill(code)
  await expect(
    page.getByText("Redeemed: the offer Spring peel, with the patient's code"),
  ).toBeVisible()
  await page.getByRole('button', { name: 'Confirm visit' }).click()
  await expect(page.getByRole('status').filter({ hasText: /Visit recorded/ })).toContainText(
    'with a bonus of 50 points',
  )
  await shoot(page, 'offer-redeemed-at-checkout')

  // The funnel on the offer's page: sent 3, claimed 1, redeemed 1, and the visit's revenue.
  await page.goto(offerUrl)
  const figure = (label: string) =>
    page
      .getByRole('region', { name: 'Funnel' })
      .getByText(label, { exact: true })
      .locator('xpath=following-sibling::*[1]')
  await expect(figure('Sent')).toHaveText('3')
  await expect(figure('Claimed')).toHaveText('1')
  await expect(figure('Redeemed')).toHaveText('1')
  await expect(figure('Revenue')).toHaveText('$150.00')
  await shoot(page, 'offer-funnel')

  // Who claimed it: Ada, redeemed, a link to her profile; nobody else has an open claim.
  const claims = page.getByRole('region', { name: 'Who claimed it' })
  const adaRow = claims.getByRole('row', { name: new RegExp(`${ada.first_name} Sender0`) })
  await expect(adaRow.getByRole('cell', { name: 'Redeemed' })).toBeVisible()
  await expect(adaRow.getByRole('link', { name: `${ada.first_name} Sender0` })).toHaveAttribute(
    'href',
    `/patients/${ada.id}`,
  )
  await claims.locator('label', { hasText: 'Not yet used' }).click()
  await expect(
    claims.getByText('No open claims: every claim was redeemed or has expired.'),
  ).toBeVisible()
  await expect(page).toHaveURL(/claims=claimed/)
  await claims.locator('label', { hasText: /^All$/ }).click()
  await expect(adaRow).toBeVisible()
  await shoot(page, 'offer-claims', claims)

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
    headers: managerHeaders,
    data: { title: 'Summer glow', bonus_points: 20 },
  })
  const { id: nextId } = (await next.json()) as { id: number }
  await request.post(`/api/promotions/${nextId}/publish`, { headers: managerHeaders })
  const sent = await request.post(`/api/promotions/${nextId}/send`, { headers: managerHeaders })
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
