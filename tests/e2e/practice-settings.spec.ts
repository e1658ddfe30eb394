import type { APIRequestContext } from '@playwright/test'
import {
  type ApiSession,
  apiSignIn,
  expect,
  FOOTER_PAGE_HEADINGS,
  openAs,
  openSignedIn,
  STAFF,
  test,
  waitForMessage,
} from './support/fixtures.ts'
import { putPractice } from './support/practice.ts'
import { screens } from './support/screens.ts'

// The practice details in Settings, the footer links and My Profile's phone change,
// through the real server.

// Each journey checks axe and takes pictures at two widths on several screens: more than a minute.
test.describe.configure({ timeout: 240_000 })

const shoot = screens('issue-19')

/** The demo practice as the seed made it, put back after a journey changed it. */
function restorePractice(request: APIRequestContext, admin: ApiSession) {
  return putPractice(request, admin, {
    practice_name: 'Glow Demo Med Spa',
    practice_zip: '62701',
    footer_links: { about: '', privacy: '', support: '' },
  })
}

test.describe('the practice details', () => {
  test('an admin fixes the practice name, sees it after a reload and in the page, and a bad zip keeps what was typed', async ({
    page,
    request,
  }) => {
    const admin = await openSignedIn(page, request, '/settings')
    try {
      const form = page.getByRole('form', { name: 'Practice details' })
      const name = form.getByRole('textbox', { name: 'Practice name' })
      await expect(name).toHaveValue('Glow Demo Med Spa')
      await shoot(
        page,
        'settings-practice-details',
        page.getByRole('heading', { name: 'Practice details' }),
      )

      // A Canadian postal code for a US practice: the wizard's message, and the input as typed.
      const zip = form.getByRole('textbox', { name: 'Zip code' })
      await zip.fill('K1A 0B1')
      await name.fill('Glow Demo Med Spa & Skin')
      await form.getByRole('button', { name: 'Save practice details' }).click()
      await expect(form.getByText('Incorrect zip code entered!')).toBeVisible()
      await expect(zip).toHaveValue('K1A 0B1')
      await expect(name).toHaveValue('Glow Demo Med Spa & Skin')
      await shoot(page, 'settings-practice-bad-zip', zip)

      await zip.fill('62701')
      await form.getByRole('button', { name: 'Save practice details' }).click()
      await expect(form.getByRole('status')).toHaveText('Practice details saved.')
      await page.reload()
      await expect(
        page.getByRole('form', { name: 'Practice details' }).getByRole('textbox', {
          name: 'Practice name',
        }),
      ).toHaveValue('Glow Demo Med Spa & Skin')
      await page.goto('/dashboard')
      await expect(page.getByText('Glow Demo Med Spa & Skin')).toBeVisible()

      // The activity log says it in words.
      const log = await request.get('/api/audit?action=practice.details_changed', {
        headers: { Authorization: `Bearer ${admin.jwt}` },
      })
      const { data } = (await log.json()) as { data: { summary: string }[] }
      expect(data[0]?.summary).toMatch(/changed the practice details \(practice name\)\.$/)
    } finally {
      await restorePractice(request, admin)
    }
  })

  test('every footer link opens something real, and a practice link replaces the default at once', async ({
    page,
    request,
    context,
  }) => {
    const admin = await openSignedIn(page, request, '/settings')
    try {
      const footer = page.getByRole('navigation', { name: 'Footer' })
      const links = footer.getByRole('link')
      await expect(links).toHaveCount(5)
      for (const [label, heading] of Object.entries(FOOTER_PAGE_HEADINGS)) {
        const link = footer.getByRole('link', { name: label })
        const href = (await link.getAttribute('href')) ?? ''
        // Fetched apart from the API's request context: the answer's cookies stay out of it.
        const answer = await fetch(new URL(href, page.url()))
        expect(answer.status, `${label} → ${href}`).toBe(200)
        const [opened] = await Promise.all([context.waitForEvent('page'), link.click()])
        await expect(opened.getByRole('heading', { level: 1, name: heading })).toBeVisible()
        if (label === 'Privacy') {
          await expect(
            opened.getByRole('heading', { name: '4. Client data and privacy' }),
          ).toBeVisible()
          expect(opened.url()).toContain('/terms#privacy')
        }
        if (label !== 'Privacy') await shoot(opened, `footer-${label.toLowerCase()}`)
        await opened.close()
      }
      await expect(footer.getByRole('link', { name: 'Support Centre' })).toHaveAttribute(
        'href',
        // The demo practice's own e-mail (Settings) while it set no support link.
        'mailto:hello@glow-demo-medspa.example',
      )

      // The practice's own support address replaces the default in the footer at once.
      const form = page.getByRole('form', { name: 'Practice details' })
      const support = form.getByRole('textbox', { name: 'Support link or e-mail' })
      await support.fill('not an address')
      await form.getByRole('button', { name: 'Save practice details' }).click()
      await expect(
        form.getByText(
          'Please enter an e-mail address (support@clinic.com) or a full https address',
        ),
      ).toBeVisible()
      await support.fill('help@glow-demo-medspa.example')
      await form.getByRole('button', { name: 'Save practice details' }).click()
      await expect(form.getByRole('status')).toHaveText('Practice details saved.')
      await expect(footer.getByRole('link', { name: 'Support Centre' })).toHaveAttribute(
        'href',
        'mailto:help@glow-demo-medspa.example',
      )
    } finally {
      await restorePractice(request, admin)
    }
  })

  test('a staff member reads the details without any admin control, and the API refuses them', async ({
    page,
    request,
  }) => {
    const staff = await openSignedIn(page, request, '/settings', STAFF)
    const section = page.getByRole('region', { name: 'Practice details' })
    await expect(section.getByText('Only an admin can change the practice details.')).toBeVisible()
    await expect(section.getByText('Glow Demo Med Spa')).toBeVisible()
    await expect(section.getByRole('form')).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Save practice details' })).toHaveCount(0)
    await shoot(page, 'settings-practice-staff', section)
    const refused = await request.put('/api/practice', {
      headers: { Authorization: `Bearer ${staff.jwt}` },
      data: { practice_name: 'Not Mine' },
    })
    expect(refused.status()).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Only an admin can change the practice settings.',
    )
  })
})

test.describe("My Profile's phone", () => {
  test('a member changes their phone with the code texted to the new number', async ({
    page,
    request,
  }) => {
    const staff = await apiSignIn(request, STAFF.email, STAFF.password)
    const phone = `312555${Date.now().toString().slice(-4)}`
    await openAs(page, staff, `/personnel/${staff.user.id}`)
    const section = page.getByRole('region', { name: 'Phone' })
    await section.getByRole('button', { name: 'Change phone' }).click()
    const number = section.getByRole('textbox', { name: 'New phone number' })
    await number.fill('12')
    await number.blur()
    await expect(section.getByText('Phone number should contain only 7 or 10 digits')).toBeVisible()
    await number.fill(phone)
    const sentAfter = new Date(Date.now() - 1000)
    await section.getByRole('button', { name: 'Get Code' }).click()
    await expect(section.getByText('Confirmation Code is sent')).toBeVisible()
    const sms = await waitForMessage(request, 'sms', `+1${phone}`, { after: sentAfter })
    const code = section.getByRole('textbox', { name: 'Confirmation code' })
    await code.fill(sms.code === '000000' ? '111111' : '000000')
    await section.getByRole('button', { name: 'Verify Code' }).click()
    await expect(section.getByText('Incorrect Confirmation Code entered')).toBeVisible()
    await shoot(page, 'my-profile-phone-code', section)
    await code.fill(sms.code ?? '')
    await section.getByRole('button', { name: 'Verify Code' }).click()
    await expect(
      section.getByRole('status').filter({ hasText: 'Phone number changed.' }),
    ).toHaveText('Phone number changed. It was verified by SMS code.')
    const shown = `(${phone.slice(0, 3)}) ${phone.slice(3, 6)}-${phone.slice(6)}`
    await expect(section.getByText(shown)).toBeVisible()
    await shoot(page, 'my-profile-phone-changed', section)
    await page.reload()
    await expect(page.getByRole('region', { name: 'Phone' }).getByText(shown)).toBeVisible()
  })
})
