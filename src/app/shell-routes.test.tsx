import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { toDay } from '#src/api/appointments.ts'
import { SESSION_KEY } from '#src/lib/session.ts'
import { demoStaffMember, promotionDetail } from '#src/lib/testing/fixtures.ts'
import { demoPractice, demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, type FakeRoutes, stubApi } from '#tests/support/fake-api.ts'
import { NEXTECH_NOT_CHOSEN } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

const AREAS = [
  ['/dashboard', 'Dashboard'],
  ['/appointments', 'Appointments'],
  ['/patients', 'Patients'],
  ['/promotions', 'Promotions'],
  ['/memberships', 'Memberships'],
  ['/procedures', 'Procedures'],
  ['/personnel', 'Personnel'],
  ['/archive', 'Archive'],
  ['/settings', 'Settings'],
] as const

const patient = (id: number, first: string, last: string, subscribed: boolean) => ({
  id,
  practice_id: 1,
  first_name: first,
  last_name: last,
  email: `${first.toLowerCase()}@example.com`,
  phone: '5551234567',
  email_subscription: subscribed,
  sms_subscription: false,
  birth_date: null,
  converted: id === 1,
  points: id * 10,
  archived: false,
  last_visit_at: null,
  created_at: '2025-01-02T10:00:00.000Z',
})

const staff = demoStaffMember

const catalogueItem = (id: number, name: string, price: number, own: number | null) => ({
  id,
  practice_id: 1,
  name,
  price,
  points: own ?? Math.floor(price / 100),
  own_points: own,
  min_days_between: 0,
  archived: false,
})

const SPRING_OFFER = promotionDetail({
  description: 'Double points',
  bonus_points: 100,
  points: 100,
  // An offer with value, shown in the list with its procedure's name.
  discount_cents: 5000,
  procedure_ids: [3],
  published_at: '2025-03-01T12:00:00.000Z',
  created_at: '2025-03-01T12:00:00.000Z',
  funnel: { sent: 0, claimed: 2, redeemed: 1, expired: 0, redemption_rate: 0.5, revenue_cents: 0 },
})

const RULES = {
  point_value_cents: 10,
  points_per_dollar: 1,
  joining_bonus: 0,
  referral_bonus: 0,
  expiry_months: 12,
  redemption_code_threshold: 0,
  max_points_per_line: 5000,
}

const yesterday = toDay(new Date(Date.now() - 24 * 60 * 60 * 1000))

const compared = (current: number, previous: number) => ({ current, previous })

/** `GET /reports/summary` for the fake practice: this month so far against the days before. */
const SUMMARY = {
  period: { from: '2026-11-01', to: '2026-11-25' },
  previous_period: { from: '2026-10-07', to: '2026-10-31' },
  today: '2026-11-25',
  tiles: {
    patients: compared(2, 1),
    new_patients: compared(1, 0),
    imported_patients: compared(0, 0),
    points_outstanding: compared(1200, 900),
    liability_cents: compared(12000, 9000),
    points_earned: compared(400, 300),
    points_redeemed: compared(-100, 0),
    points_expired: compared(0, 0),
    points_adjusted: compared(0, 0),
    offers_claimed: compared(2, 0),
    offers_redeemed: compared(1, 0),
    appointments_booked: compared(1, 2),
    appointments_completed: compared(0, 2),
  },
  point_value_cents: 10,
  months: Array.from({ length: 12 }, (_, i) => ({
    month: `${i < 2 ? 2025 : 2026}-${String(((i + 10) % 12) + 1).padStart(2, '0')}`,
    earned: 100 * i,
    redeemed: -10 * i,
    expired: 0,
    new_patients: i % 3,
  })),
  offers: [
    {
      id: 7,
      title: 'Spring glow',
      starts_at: null,
      ends_at: null,
      sent: 3,
      claimed: 2,
      redeemed: 1,
      expired: 0,
    },
  ],
}

/** `GET /reports/worklist`: today's appointment not yet completed; the other lists empty. */
function worklist(call: FakeCall) {
  const list = new URLSearchParams(call.search).get('list') ?? 'expiring'
  const data =
    list === 'appointments'
      ? [
          {
            patient_id: 2,
            first_name: 'Grace',
            last_name: 'Hopper',
            points: null,
            at: new Date().toISOString(),
            label: 'Hydrafacial',
            promotion_id: null,
            appointment_id: 9,
          },
        ]
      : []
  return { list, data, total: data.length, page: 1, pageSize: 10 }
}

/** A fake of the practice's data, enough for every shell area. */
const PRACTICE = demoPractice

function practiceApi(): FakeRoutes {
  return {
    'GET /patients/summary': { patients: 2, subscribed: 1, converted: 1 },
    'GET /reports/summary': SUMMARY,
    'GET /reports/worklist': worklist,
    'GET /patients': {
      data: [patient(1, 'Ada', 'Lovelace', true), patient(2, 'Grace', 'Hopper', false)],
      total: 2,
      page: 1,
      pageSize: 25,
    },
    [`GET /appointments/1/${toDay(new Date())}`]: [
      {
        id: 9,
        practice_id: 1,
        patient_id: 2,
        procedure_id: 3,
        starts_at: new Date().toISOString(),
        status: 'scheduled',
      },
    ],
    [`GET /appointments/1/${yesterday}`]: [],
    'GET /appointments': [
      {
        id: 9,
        practice_id: 1,
        patient_id: 2,
        procedure_id: 3,
        starts_at: new Date().toISOString(),
        notes: 'Sensitive skin',
        status: 'scheduled',
        nextech_status: null,
        patient: { id: 2, first_name: 'Grace', last_name: 'Hopper', phone: '5550101002' },
        procedure: { id: 3, name: 'Hydrafacial' },
      },
    ],
    'GET /patients/2': patient(2, 'Grace', 'Hopper', false),
    'GET /patients/promotions/2': [],
    'GET /promotions': { data: [SPRING_OFFER], total: 1, page: 1, pageSize: 20 },
    'GET /practice/rules': RULES,
    'GET /practice': PRACTICE,
    'GET /practice/integrations/nextech': NEXTECH_NOT_CHOSEN,
    'GET /procedures': [catalogueItem(3, 'Hydrafacial', 19900, 200)],
    'GET /products': [catalogueItem(4, 'Vitamin C serum', 4500, null)],
    'GET /users': [
      staff,
      { ...staff, id: 6, email: 'staff@example.com', first_name: 'Sam', access_rights: 'Staff' },
    ],
    'GET /users/5': staff,
    'GET /membership-plans': { data: [] },
    'GET /memberships': { data: [], page: 1, total: 0 },
    'GET /patients/2/memberships': { data: [] },
    'GET /practice/payments': {
      connected: false,
      provider: null,
      account_id: null,
      connected_at: null,
      retry_schedule_days: [1, 3, 5, 7],
    },
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
  localStorage.clear()
  sessionStorage.clear()
})

describe('the shell guard', () => {
  it('sends the empty path to the dashboard, and a signed-out visitor on to sign in', async () => {
    const { router, history } = renderRoute('/')
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(screen.queryByText(/^Hello, /)).not.toBeInTheDocument()
    // The visit went through /dashboard, replaced rather than stacked in history.
    expect(history.length).toBe(1)
  })

  it.each([...AREAS.map(([path]) => path), '/personnel/5'])(
    'sends a signed-out visitor from %s to sign in',
    async (path) => {
      const calls = stubApi(practiceApi())
      const { router } = renderRoute(path)
      await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
      expect(screen.queryByText(/^Hello, /)).not.toBeInTheDocument()
      // No practice data is asked for without a session.
      expect(calls.filter((call) => !call.path.startsWith('/auth'))).toEqual([])
    },
  )

  it.each(AREAS)('shows %s in the shell to a signed-in user', async (path, title) => {
    stubApi(practiceApi())
    const { router } = renderRoute(path, { session: demoSession })
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe(path)
    expect(screen.getByText('Hello, Demo Admin')).toBeInTheDocument()
    expect(screen.getByText(`© 2018-${new Date().getFullYear()} Glow Rewards`)).toBeInTheDocument()
    const nav = screen.getByRole('navigation', { name: 'Main navigation' })
    for (const [, label] of AREAS) {
      expect(within(nav).getByRole('link', { name: label })).toBeInTheDocument()
    }
  })

  it("ends the footer's years at the current year and writes to the practice's own e-mail", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2031-03-04T12:00:00Z'))
    try {
      stubApi(practiceApi())
      const session = {
        ...demoSession,
        practice: { ...demoSession.practice, email: 'desk@glow-demo-medspa.example' },
      }
      renderRoute('/dashboard', { session })
      const footer = await screen.findByRole('navigation', { name: 'Footer' })
      expect(screen.getByText('© 2018-2031 Glow Rewards')).toBeInTheDocument()
      expect(within(footer).getByRole('link', { name: 'Support Centre' })).toHaveAttribute(
        'href',
        'mailto:desk@glow-demo-medspa.example',
      )
    } finally {
      vi.useRealTimers()
    }
  })

  it('writes to the configured support address when the practice has no e-mail of its own', async () => {
    stubApi(practiceApi())
    renderRoute('/dashboard', { session: demoSession })
    const footer = await screen.findByRole('navigation', { name: 'Footer' })
    const href = within(footer).getByRole('link', { name: 'Support Centre' }).getAttribute('href')
    expect(href).toBe('mailto:support@glowrewards.com')
    expect(href).not.toContain('.example')
  })

  it('shows My Profile with the user from GET /users/{id}', async () => {
    const calls = stubApi(practiceApi())
    renderRoute('/personnel/5', { session: demoSession })
    expect(await screen.findByRole('heading', { level: 1, name: 'My Profile' })).toBeInTheDocument()
    expect(screen.getByText('Hello, Demo Admin')).toBeInTheDocument()
    expect(screen.getAllByText('demo@example.com').length).toBeGreaterThan(0)
    expect(screen.getByText('Provider')).toBeInTheDocument()
    expect(screen.getByText('Admin')).toBeInTheDocument()
    const call = calls.find((c) => c.path === '/users/5')
    expect(call?.method).toBe('GET')
  })

  it('sends a profile address that is not a user id to the not-found page', async () => {
    stubApi(practiceApi())
    const { router } = renderRoute('/personnel/not-a-number', { session: demoSession })
    await waitFor(() => expect(router.state.location.pathname).toBe('/404'))
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument()
  })
})

/**
 * Opens `path` (whose heading is `heading`) with the practice's logo as `GET /practice` serves it
 * and as the stored session holds it, and the user's picture if given; answers a getter of the
 * header's practice logo.
 */
async function openWithLogo(
  path: string,
  heading: string,
  { served, stored, userImage }: { served: string; stored: string; userImage?: string },
) {
  stubApi({ ...practiceApi(), 'GET /practice': { ...PRACTICE, image_path: served } })
  renderRoute(path, {
    session: {
      ...demoSession,
      user: { ...demoSession.user, image_path: userImage ?? demoSession.user.image_path },
      practice: { ...demoSession.practice, image_path: stored },
    },
  })
  await screen.findByRole('heading', { level: 1, name: heading })
  return () => within(screen.getByRole('banner')).getByRole('img', { name: 'Practice logo' })
}

describe('the shell', () => {
  it('greets with the avatar initial and shows the default logo without a practice image', async () => {
    stubApi(practiceApi())
    renderRoute('/settings', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Settings' })
    const header = screen.getByRole('banner')
    expect(within(header).getByText('D')).toBeInTheDocument()
    expect(within(header).getByRole('img', { name: 'Practice logo' })).toHaveAttribute(
      'src',
      '/logo.svg',
    )
  })

  it("shows the practice's own logo and the user's picture when they have one", async () => {
    const logo = await openWithLogo('/settings', 'Settings', {
      served: '/uploads/practice.png',
      stored: '/uploads/practice.png',
      userImage: '/uploads/demo.png',
    })
    expect(logo()).toHaveAttribute('src', '/uploads/practice.png')
  })

  it('shows the logo a colleague uploaded since this browser signed in', async () => {
    const logo = await openWithLogo('/dashboard', 'Dashboard', {
      served: '/api/upload/files/9/new-logo-key',
      stored: '/api/upload/files/8/old-logo-key',
    })
    await waitFor(() => expect(logo()).toHaveAttribute('src', '/api/upload/files/9/new-logo-key'))
    // The stored session follows, so the next page load starts with the new logo.
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? '{}').practice.image_path).toBe(
      '/api/upload/files/9/new-logo-key',
    )
  })

  it('opens My Profile and Logout from the avatar menu', async () => {
    stubApi(practiceApi())
    const { router, user } = renderRoute('/dashboard', { session: demoSession, remember: true })
    await screen.findByRole('heading', { level: 1, name: 'Dashboard' })

    await user.click(screen.getByRole('button', { name: 'Account menu' }))
    await user.click(await screen.findByRole('menuitem', { name: 'My Profile' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/personnel/5'))
    await screen.findByRole('heading', { level: 1, name: 'My Profile' })

    await user.click(screen.getByRole('button', { name: 'Account menu' }))
    const logout = await screen.findByRole('menuitem', { name: 'Logout' })
    // Pointing at Logout must not sign out (links preload their route on intent).
    await user.hover(logout)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(localStorage.getItem(SESSION_KEY)).not.toBeNull()
    await user.click(logout)
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it('moves between areas with the side menu and scrolls back to the top', async () => {
    stubApi(practiceApi())
    const scrollTo = vi.spyOn(window, 'scrollTo')
    const { router, user } = renderRoute('/dashboard', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Dashboard' })
    scrollTo.mockClear()
    const nav = screen.getByRole('navigation', { name: 'Main navigation' })
    await user.click(within(nav).getByRole('link', { name: 'Patients' }))
    await screen.findByRole('heading', { level: 1, name: 'Patients' })
    expect(router.state.location.pathname).toBe('/patients')
    await waitFor(() => expect(scrollTo).toHaveBeenCalledWith(expect.objectContaining({ top: 0 })))
  })

  it('ends the session when another tab signs out', async () => {
    stubApi(practiceApi())
    const { router } = renderRoute('/settings', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Settings' })
    sessionStorage.clear()
    window.dispatchEvent(new StorageEvent('storage', { key: SESSION_KEY }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
  })
})

describe('the practice details in Settings', () => {
  it("puts the server's field refusal on its field, keeps what was typed, then saves", async () => {
    let refuse = true
    const calls = stubApi({
      ...practiceApi(),
      'PUT /practice': (call: FakeCall) => {
        if (!refuse) return { ...PRACTICE, ...(call.body as object), nextech: null }
        refuse = false
        return new Response(
          JSON.stringify({
            error: {
              status: 400,
              name: 'ValidationError',
              message: 'city: City should contain minimum 3 characters',
              details: {
                issues: [{ path: 'city', message: 'City should contain minimum 3 characters' }],
              },
            },
          }),
          { status: 400, headers: { 'content-type': 'application/json' } },
        )
      },
    })
    const { user } = renderRoute('/settings', { session: demoSession })
    const form = await screen.findByRole('form', { name: 'Practice details' })
    const name = within(form).getByRole('textbox', { name: 'Practice name' })
    await user.clear(name)
    await user.type(name, 'Glow Skin Studio')
    await user.click(within(form).getByRole('button', { name: 'Save practice details' }))
    expect(
      await within(form).findByText('City should contain minimum 3 characters'),
    ).toBeInTheDocument()
    expect(name).toHaveValue('Glow Skin Studio')
    await user.click(within(form).getByRole('button', { name: 'Save practice details' }))
    expect(await within(form).findByText('Practice details saved.')).toBeInTheDocument()
    expect(calls.filter((c) => c.method === 'PUT').at(-1)?.body).toMatchObject({
      practice_name: 'Glow Skin Studio',
      practice_zip: '62701',
    })
  })

  it('shows a staff member the details without the form', async () => {
    stubApi(practiceApi())
    renderRoute('/settings', {
      session: { ...demoSession, user: { ...demoSession.user, access_rights: 'Staff' } },
    })
    const section = await screen.findByRole('region', { name: 'Practice details' })
    expect(within(section).queryByRole('form')).not.toBeInTheDocument()
    expect(
      within(section).getByText('Only an admin can change the practice details.'),
    ).toBeInTheDocument()
    // The practice phone is stored as its digits and shown as people write it.
    expect(within(section).getByText('(555) 010-0100')).toBeInTheDocument()
  })
})

describe("Settings' sections", () => {
  const sections = async () => {
    await screen.findByRole('region', { name: 'Practice details' })
    return screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent)
  }

  it('shows an Admin each section once, the practice first and the account last', async () => {
    stubApi(practiceApi())
    renderRoute('/settings', { session: demoSession })
    expect(await sections()).toEqual([
      'Practice details',
      'Integrations',
      'Practice logo',
      'Programme rules',
      'Payments',
      'Subscription',
      'Activity log',
      'Your account',
    ])
    // The practice's name is its field, not a second copy beside it.
    expect(screen.queryByText(PRACTICE.practice_name)).not.toBeInTheDocument()
    expect(screen.getByRole('textbox', { name: 'Practice name' })).toHaveValue(
      PRACTICE.practice_name,
    )
  })

  it('shows a Staff member the practice, its logo and rules, and their account', async () => {
    stubApi(practiceApi())
    renderRoute('/settings', {
      session: { ...demoSession, user: { ...demoSession.user, access_rights: 'Staff' } },
    })
    expect(await sections()).toEqual([
      'Practice details',
      'Integrations',
      'Practice logo',
      'Programme rules',
      'Payments',
      'Your account',
    ])
    expect(screen.getAllByText(PRACTICE.practice_name)).toHaveLength(1)
  })
})

/** Opens Settings as the admin, who saves the programme rules as sent; answers the rules' form. */
async function openRulesForm() {
  const calls = stubApi({
    ...practiceApi(),
    'PUT /practice/rules': (call: FakeCall) => call.body,
  })
  const { user } = renderRoute('/settings', { session: demoSession })
  const form = await screen.findByRole('form', { name: 'Programme rules' })
  return { calls, user, form }
}

describe('the programme rules in Settings', () => {
  it('lets an admin change them: a refused value says why and keeps what was typed', async () => {
    const { calls, user, form } = await openRulesForm()
    const bonus = within(form).getByRole('textbox', { name: /Joining bonus/ })
    const value = within(form).getByRole('textbox', { name: /Point value/ })
    await user.clear(value)
    await user.clear(bonus)
    await user.type(bonus, '250')
    await user.click(within(form).getByRole('button', { name: 'Save rules' }))
    expect(await within(form).findByText('Point value must be a number.')).toBeInTheDocument()
    expect(bonus).toHaveValue('250')
    expect(calls.some((c) => c.method === 'PUT')).toBe(false)
    await user.type(value, '5')
    await user.click(within(form).getByRole('button', { name: 'Save rules' }))
    expect(
      await within(form).findByText('Programme rules saved. They apply from now on.'),
    ).toBeInTheDocument()
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      ...RULES,
      point_value_cents: 5,
      joining_bonus: 250,
    })
  })

  it('refuses −5 and 1.5 with a sentence under the field, keeping what was typed', async () => {
    const { calls, user, form } = await openRulesForm()
    const bonus = within(form).getByRole('textbox', { name: /Joining bonus/ })
    const expiry = within(form).getByRole('textbox', { name: /Points expire after/ })
    await user.clear(bonus)
    await user.type(bonus, '-5')
    await user.clear(expiry)
    await user.type(expiry, '1.5')
    await user.tab()
    expect(await within(form).findByText('Joining bonus cannot be negative.')).toBeInTheDocument()
    expect(await within(form).findByText('Expiry must be a whole number.')).toBeInTheDocument()
    expect(bonus).toHaveValue('-5')
    expect(expiry).toHaveValue('1.5')
    expect(bonus).toHaveAccessibleDescription(/Joining bonus cannot be negative\./)
    await user.click(within(form).getByRole('button', { name: 'Save rules' }))
    expect(bonus).toHaveValue('-5')
    expect(expiry).toHaveValue('1.5')
    expect(calls.some((c) => c.method === 'PUT')).toBe(false)
  })

  it('shows the rules in words to a staff member, and who can change them', async () => {
    stubApi({ ...practiceApi(), 'GET /practice/rules': { ...RULES, expiry_months: 0 } })
    renderRoute('/settings', {
      session: { ...demoSession, user: { ...demoSession.user, access_rights: 'Staff' } },
    })
    const section = await screen.findByRole('region', { name: 'Programme rules' })
    expect(within(section).queryByRole('form')).not.toBeInTheDocument()
    expect(within(section).getByText('10 ¢ (100 points = $10.00)')).toBeInTheDocument()
    expect(within(section).getByText('Never')).toBeInTheDocument()
    expect(
      within(section).getByText('Only an admin can change the programme rules.'),
    ).toBeInTheDocument()
  })
})

describe('shell areas with data', () => {
  it('dashboard shows the tiles of GET /reports/summary and the worklist of today', async () => {
    const calls = stubApi(practiceApi())
    renderRoute('/dashboard', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Dashboard' })
    const tile = async (label: string) => within(await screen.findByRole('region', { name: label }))
    expect((await tile('Patients')).getByText('2')).toBeInTheDocument()
    expect((await tile('Points outstanding')).getByText('1,200')).toBeInTheDocument()
    expect((await tile('Points outstanding')).getByText('$120.00')).toBeInTheDocument()
    expect((await tile('Offers claimed → redeemed')).getByText('50% redeemed')).toBeInTheDocument()
    expect((await tile('Appointments today')).getByText('0 of 1')).toBeInTheDocument()
    // The numbers come from the aggregate endpoint, not from loading the patient list.
    expect(calls.some((c) => c.path === '/reports/summary')).toBe(true)
    expect(calls.some((c) => c.path === '/patients')).toBe(false)
  })

  it("patients lists the practice's patients with their e-mail subscription", async () => {
    stubApi(practiceApi())
    renderRoute('/patients', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Patients' })
    const rows = screen.getAllByRole('row')
    expect(rows).toHaveLength(3)
    expect(
      within(rows[1] as HTMLElement).getByRole('link', { name: 'Ada Lovelace' }),
    ).toHaveAttribute('href', '/patients/1')
    expect(within(rows[1] as HTMLElement).getByText('Subscribed')).toBeInTheDocument()
    expect(within(rows[2] as HTMLElement).getByText('Unsubscribed')).toBeInTheDocument()
  })

  it('patients searches on the server as you type and keeps the search in the address', async () => {
    const calls = stubApi(practiceApi())
    const { router } = renderRoute('/patients', { session: demoSession })
    const user = userEvent.setup()
    await user.type(await screen.findByRole('searchbox', { name: 'Search patients' }), '555-12')
    await waitFor(() => expect(router.state.location.href).toContain('search=555-12'))
    await waitFor(() =>
      expect(calls.some((c) => c.path === '/patients' && c.search.includes('search=555-12'))).toBe(
        true,
      ),
    )
  })

  it('appointments shows today with patient and procedure names', async () => {
    const calls = stubApi(practiceApi())
    renderRoute('/appointments', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Appointments' })
    const card = await screen.findByRole('article', { name: /Grace Hopper/ })
    expect(within(card).getByRole('link', { name: 'Grace Hopper' })).toHaveAttribute(
      'href',
      '/patients/2',
    )
    expect(within(card).getByText('Hydrafacial')).toBeInTheDocument()
    expect(within(card).getByText('Sensitive skin')).toBeInTheDocument()
    expect(within(card).getByText('scheduled')).toBeInTheDocument()
    // One range call with the names joined: no patient is fetched, let alone the whole table.
    const today = toDay(new Date())
    const range = calls.find((c) => c.path === '/appointments')
    expect(new URLSearchParams(range?.search).get('from')).toBe(today)
    expect(calls.filter((c) => c.path.startsWith('/patients'))).toEqual([])
  })

  it('archive lists the archived patients, searchable, and a past day of appointments', async () => {
    const archivedPatient = { ...patient(7, 'Mary', 'Shelley', true), archived: true }
    const calls = stubApi({
      ...practiceApi(),
      'GET /patients': { data: [archivedPatient], total: 1, page: 1, pageSize: 25 },
      [`GET /appointments/1/${yesterday}`]: [
        {
          id: 11,
          practice_id: 1,
          patient_id: 2,
          procedure_id: null,
          starts_at: new Date(Date.now() - 86_400_000).toISOString(),
          status: 'completed',
        },
      ],
    })
    const user = userEvent.setup()
    const { router } = renderRoute('/archive', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Archive' })
    const archived = screen.getByRole('region', { name: 'Archived patients' })
    expect(within(archived).getAllByRole('link', { name: 'Mary Shelley' })[0]).toHaveAttribute(
      'href',
      '/patients/7',
    )
    expect(within(archived).getByText('1 archived patient')).toBeInTheDocument()
    const past = screen.getByRole('region', { name: 'Past appointments' })
    expect(within(past).getByText('Grace Hopper')).toBeInTheDocument()
    expect(within(past).getByText('completed')).toBeInTheDocument()
    expect(calls.some((c) => c.path === '/patients' && c.search.includes('archived=true'))).toBe(
      true,
    )
    await user.type(within(archived).getByRole('searchbox', { name: 'Search patients' }), 'shel')
    await waitFor(() => expect(router.state.location.search).toMatchObject({ search: 'shel' }))
    await waitFor(() =>
      expect(
        calls.some(
          (c) =>
            c.path === '/patients' &&
            c.search.includes('archived=true') &&
            c.search.includes('search=shel'),
        ),
      ).toBe(true),
    )
    expect(calls.some((c) => c.path.startsWith('/patients/all'))).toBe(false)
  })

  it('procedures lists treatments and products with prices in dollars', async () => {
    const calls = stubApi(practiceApi())
    renderRoute('/procedures', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Procedures' })
    const treatments = within(screen.getByRole('table', { name: 'Treatments' }))
    expect(treatments.getByText('Hydrafacial')).toBeInTheDocument()
    expect(treatments.getByText('$199.00')).toBeInTheDocument()
    const products = within(screen.getByRole('table', { name: 'Products' }))
    expect(products.getByText('Vitamin C serum')).toBeInTheDocument()
    expect(products.getByText('(from price)')).toBeInTheDocument()
    expect(calls.find((c) => c.path === '/procedures')?.search).toBe('?practice=1')
    expect(calls.find((c) => c.path === '/products')?.search).toBe('?practice=1')
  })

  it('lets an admin add a treatment: a bad price says why and keeps the name', async () => {
    const calls = stubApi({
      ...practiceApi(),
      'POST /procedures': (call: FakeCall) => {
        const body = call.body as { name: string; price: number }
        return new Response(JSON.stringify(catalogueItem(9, body.name, body.price, null)), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        })
      },
    })
    const { user } = renderRoute('/procedures', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Procedures' })
    await user.click(screen.getByRole('button', { name: 'Add treatment' }))
    const dialog = within(await screen.findByRole('dialog', { name: 'Add treatment' }))
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'Glow Peel')
    await user.click(dialog.getByRole('button', { name: 'Add treatment' }))
    expect(
      await dialog.findByText('Please enter a price of $0.00 to $100,000.00.'),
    ).toBeInTheDocument()
    expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue('Glow Peel')
    await user.type(dialog.getByRole('textbox', { name: 'Price' }), '125.5')
    await user.click(dialog.getByRole('button', { name: 'Add treatment' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(calls.find((c) => c.method === 'POST' && c.path === '/procedures')?.body).toEqual({
      name: 'Glow Peel',
      price: 12550,
      points: null,
      min_days_between: 0,
    })
  })

  it('shows a name another treatment has under the Name field, keeping what was typed', async () => {
    const message =
      '"Hydrafacial" is already in your catalogue. Please choose another name, or archive that item first.'
    stubApi({
      ...practiceApi(),
      'POST /procedures': () =>
        new Response(
          JSON.stringify({
            error: {
              status: 409,
              name: 'ConflictError',
              message,
              details: { field: 'name', existing_id: 3 },
            },
          }),
          { status: 409, headers: { 'content-type': 'application/json' } },
        ),
    })
    const { user } = renderRoute('/procedures', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Procedures' })
    await user.click(screen.getByRole('button', { name: 'Add treatment' }))
    const dialog = within(await screen.findByRole('dialog', { name: 'Add treatment' }))
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'HYDRAFACIAL')
    await user.type(dialog.getByRole('textbox', { name: 'Price' }), '99')
    await user.click(dialog.getByRole('button', { name: 'Add treatment' }))
    const name = dialog.getByRole('textbox', { name: 'Name' })
    await waitFor(() => expect(name).toHaveAccessibleDescription(message))
    expect(name).toHaveAttribute('aria-invalid', 'true')
    expect(name).toHaveValue('HYDRAFACIAL')
    expect(dialog.getByRole('textbox', { name: 'Price' })).toHaveValue('$99.00')
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument()
  })

  it('shows a staff member the catalogue without Add, Edit or Archive', async () => {
    stubApi(practiceApi())
    renderRoute('/procedures', {
      session: { ...demoSession, user: { ...demoSession.user, access_rights: 'Staff' } },
    })
    await screen.findByText(/Only a manager or an admin can change them/)
    expect(screen.queryByRole('button', { name: /Add |Edit |Archive / })).not.toBeInTheDocument()
  })

  it('promotions lists the live offers with their funnel, the tab in the address', async () => {
    const calls = stubApi(practiceApi())
    const { user, router } = renderRoute('/promotions', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Promotions' })
    expect(screen.getByRole('tab', { name: 'Live', selected: true })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Spring glow' })).toHaveAttribute(
      'href',
      '/promotions/7',
    )
    expect(screen.getByText('$50.00 off Hydrafacial · Free · +100 bonus')).toBeInTheDocument()
    await user.click(screen.getByRole('tab', { name: 'Scheduled' }))
    await vi.waitFor(() => expect(router.state.location.search).toEqual({ status: 'scheduled' }))
    expect(
      calls.some(
        (c) =>
          c.path === '/promotions' && new URLSearchParams(c.search).get('status') === 'scheduled',
      ),
    ).toBe(true)
  })

  it("an offer's page lists who claimed it, filtered by status in the address, each linking to the patient", async () => {
    const claim = {
      id: 40,
      patient_id: 2,
      patient_name: 'Ada Lovelace',
      patient_archived: false,
      status: 'claimed',
      claimed_at: '2027-03-02T10:00:00.000Z',
      redeemed_at: null,
      ends_at: '2027-03-31T09:00:00.000Z',
    }
    const calls = stubApi({
      ...practiceApi(),
      'GET /promotions/7': SPRING_OFFER,
      'GET /promotions/7/claims': (call: FakeCall) =>
        new URLSearchParams(call.search).get('status') === 'redeemed'
          ? { data: [], total: 0, page: 1, pageSize: 10 }
          : { data: [claim], total: 1, page: 1, pageSize: 10 },
    })
    const { user, router } = renderRoute('/promotions/7', { session: demoSession })
    const section = await screen.findByRole('region', { name: 'Who claimed it' })
    expect(within(section).getByRole('link', { name: 'Ada Lovelace' })).toHaveAttribute(
      'href',
      '/patients/2',
    )
    expect(within(section).getByRole('cell', { name: 'Claimed' })).toBeInTheDocument()
    expect(within(section).getByText('1 claim')).toBeInTheDocument()
    await user.click(within(section).getByRole('radio', { name: 'Redeemed' }))
    await vi.waitFor(() => expect(router.state.location.search).toEqual({ claims: 'redeemed' }))
    expect(
      await within(section).findByText('Nobody has redeemed this offer yet.'),
    ).toBeInTheDocument()
    expect(
      calls.some(
        (c) =>
          c.path === '/promotions/7/claims' &&
          new URLSearchParams(c.search).get('status') === 'redeemed',
      ),
    ).toBe(true)
  })

  it('personnel lists the staff from GET /users', async () => {
    stubApi(practiceApi())
    renderRoute('/personnel', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    expect(screen.getByRole('link', { name: 'Demo Admin' })).toHaveAttribute('href', '/personnel/5')
    expect(screen.getByRole('link', { name: 'Sam Admin' })).toHaveAttribute('href', '/personnel/6')
    expect(screen.getByText('staff@example.com')).toBeInTheDocument()
  })

  it('shows a clear message when the data cannot be loaded', async () => {
    stubApi({
      ...practiceApi(),
      'GET /patients': apiError(500, 'The database is resting.'),
    })
    renderRoute('/patients', { session: demoSession })
    expect(await screen.findByRole('alert')).toHaveTextContent('The database is resting.')
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument()
    expect(screen.getByText('Hello, Demo Admin')).toBeInTheDocument()
  })

  it('says what is missing on a refusal by permission and leads on, without "Try again"', async () => {
    stubApi({
      ...practiceApi(),
      'GET /users': [staff],
      'GET /audit': apiError(403, 'Only an admin can see the activity log.', 'ForbiddenError'),
    })
    const staffSession = {
      ...demoSession,
      user: { ...demoSession.user, access_rights: 'Staff' as const },
    }
    const { user, router } = renderRoute('/settings/activity', { session: staffSession })
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Only an admin can see the activity log.',
    )
    expect(
      screen.getByText(
        'Your role in this practice is Staff. An admin of your practice can change it in Personnel.',
      ),
    ).toBeInTheDocument()
    // Retrying cannot help: the way on is the dashboard.
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument()
    const back = screen.getByRole('link', { name: 'Back to the dashboard' })
    expect(back).toHaveAttribute('href', '/dashboard')
    await user.click(back)
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
  })

  it('signs out and goes to sign in when the server no longer accepts the session', async () => {
    stubApi({
      ...practiceApi(),
      'GET /users': apiError(401, 'Your session has ended.'),
    })
    const { router } = renderRoute('/personnel', { session: demoSession, remember: true })
    await waitFor(() => expect(router.state.location.pathname).toBe('/signin'))
    expect(localStorage.getItem(SESSION_KEY)).toBeNull()
  })

  it("says 'Please wait...' while a page's data is on its way", async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    stubApi({
      ...practiceApi(),
      'GET /users': async () => {
        await gate
        return [staff]
      },
    })
    const { user } = renderRoute('/dashboard', { session: demoSession })
    await screen.findByRole('heading', { level: 1, name: 'Dashboard' })
    expect(screen.queryByText('Please wait...')).not.toBeInTheDocument()
    const nav = screen.getByRole('navigation', { name: 'Main navigation' })
    await user.click(within(nav).getByRole('link', { name: 'Personnel' }))
    expect(await screen.findByText('Please wait...')).toBeInTheDocument()
    expect(screen.getAllByRole('status').some((el) => el.textContent === 'Please wait...')).toBe(
      true,
    )
    release()
    await screen.findByRole('heading', { level: 1, name: 'Personnel' })
    await waitFor(() => expect(screen.queryByText('Please wait...')).not.toBeInTheDocument())
  })
})
