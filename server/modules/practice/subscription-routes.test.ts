import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityPage } from '#domain/activity-log.ts'
import { PERMISSION_REFUSALS } from '#domain/permissions.ts'
import { SUBSCRIPTION_MESSAGES, type SubscriptionAnswer } from '#domain/subscription.ts'
import { practices } from '#server/db/schema.ts'
import { TEST_CARD_FAILURES } from '#server/payments/test-gateway.ts'
import { type ApiCall, postJson, readySignUp } from '#server/testing/api-journeys.ts'
import { useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import {
  createPracticeFixture,
  mintToken,
  type TestApp,
  testBackends,
} from '#server/testing/test-app.ts'

const T0 = new Date('2026-11-12T15:00:00Z')

describe.each(testBackends())('the subscription in Settings on $name', (backend) => {
  const t = useTestApp(backend)
  const practice = usePracticeFixture(t, { name: 'Glow Subscribed Spa' })
  const manager = useMember(t, 'Manager', practice)
  const staff = useMember(t, 'Staff', practice)

  const card = (number: string, exp_month = 12, exp_year = 2028) =>
    t.payments.tokeniser.createToken({ number, exp_month, exp_year, cvc: '123' }).id

  beforeAll(async () => {
    t.setNow(T0)
    // The practice paid and subscribed at sign-up: the monthly Lite plan with WELCOME10 (10% off).
    const { customerId } = await t.payments.createCustomer({
      token: card('4242424242424242'),
      email: 'billing@subscribed.example',
      billingInformation: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '73301' },
      idempotencyKey: 'pay-fixture',
    })
    const { subscriptionId } = await t.payments.createSubscription({
      customerId,
      planIds: ['plan_glow_monthly_lite'],
      coupon: 'WELCOME10',
      idempotencyKey: 'subscribe-fixture',
    })
    await t.db
      .update(practices)
      .set({
        stripe_customer_id: customerId,
        stripe_subscription_id: subscriptionId,
        plan_id: 'plan_glow_monthly_lite',
        coupon_id: 'WELCOME10',
        subscription_months: 1,
      })
      .where(eq(practices.id, practice.practiceId))
  })
  afterAll(() => t.setNow(undefined))

  const call = async (path: string, init: { method?: string; json?: unknown; token?: string }) => {
    const response = await t.request(`/api/practice/subscription${path}`, {
      method: init.method ?? 'GET',
      token: init.token ?? practice.token,
      ...(init.json !== undefined ? { json: init.json } : {}),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const read = async () => (await call('', {})).body as unknown as SubscriptionAnswer
  const activity = async (action: string) => {
    const response = await t.request(`/api/audit?action=${action}`, { token: practice.token })
    return ((await response.json()) as ActivityPage).data.map((event) => event.summary)
  }

  it('shows the Admin the plan, term, card, and the renewal a month on at the full price', async () => {
    expect(await call('', {})).toEqual({
      status: 200,
      body: {
        plans: [{ id: 'plan_glow_monthly_lite', name: 'Glow Monthly Lite', amount: 9900 }],
        term: 'month',
        status: 'active',
        card: { brand: 'Visa', last4: '4242', exp_month: 12, exp_year: 2028 },
        current_period_end: '2026-12-12T15:00:00.000Z',
        renews_at: '2026-12-12T15:00:00.000Z',
        // WELCOME10 is a once-only coupon: it took 10% off the first month.
        next_amount: 9900,
        coupon: { id: 'WELCOME10', percent_off: 10, amount_off: null, duration: 'once' },
        cancel_at_period_end: false,
        cancels_at: null,
      },
    })
  })

  it('refuses a Manager and a Staff member every call, saying what is missing', async () => {
    for (const token of [manager.token, staff.token]) {
      for (const [path, method, json] of [
        ['', 'GET', undefined],
        ['/cancel', 'POST', {}],
        ['/resume', 'POST', {}],
        ['/card', 'PUT', { token: 'tok_abc' }],
      ] as const) {
        expect(await call(path, { method, json, token })).toMatchObject({
          status: 403,
          body: { error: { message: PERMISSION_REFUSALS['subscription.manage'] } },
        })
      }
    }
    expect((await read()).cancel_at_period_end).toBe(false)
  })

  it('sets the subscription to end at the term end, once for a double click, and undoes it', async () => {
    const [first, second] = await Promise.all([
      call('/cancel', { method: 'POST' }),
      call('/cancel', { method: 'POST' }),
    ])
    for (const answer of [first, second]) {
      expect(answer).toMatchObject({
        status: 200,
        body: {
          status: 'active',
          cancel_at_period_end: true,
          cancels_at: '2026-12-12T15:00:00.000Z',
          renews_at: null,
          next_amount: null,
        },
      })
    }
    expect(await activity('subscription.cancel_scheduled')).toEqual([
      'Olive Other set the subscription to end on 12 Dec 2026.',
    ])

    expect(await call('/resume', { method: 'POST' })).toMatchObject({
      status: 200,
      body: {
        cancel_at_period_end: false,
        cancels_at: null,
        renews_at: '2026-12-12T15:00:00.000Z',
        next_amount: 9900,
      },
    })
    expect((await call('/resume', { method: 'POST' })).status).toBe(200)
    expect(await activity('subscription.resumed')).toEqual([
      'Olive Other kept the subscription: it renews on 12 Dec 2026.',
    ])
  })

  it('refuses a declined card with the message of sign-up and keeps the card on file', async () => {
    const declined = await call('/card', {
      method: 'PUT',
      json: { token: card('4000000000000002') },
    })
    expect(declined).toMatchObject({
      status: 402,
      body: {
        error: {
          message: TEST_CARD_FAILURES['4000000000000002']?.message,
          details: { code: 'card_declined' },
        },
      },
    })
    expect((await read()).card?.last4).toBe('4242')
    expect(await call('/card', { method: 'PUT', json: { token: 'not-a-token' } })).toMatchObject({
      status: 400,
    })
  })

  it('changes the card, audits it in words once for a repeated token, and shows the new card', async () => {
    const token = card('5555555555554444', 3, 2029)
    const [first, second] = await Promise.all([
      call('/card', { method: 'PUT', json: { token } }),
      call('/card', { method: 'PUT', json: { token } }),
    ])
    for (const answer of [first, second]) {
      expect(answer).toMatchObject({
        status: 200,
        body: { card: { brand: 'Mastercard', last4: '4444', exp_month: 3, exp_year: 2029 } },
      })
    }
    expect(await activity('subscription.card_changed')).toEqual([
      'Olive Other changed the card on file to Mastercard •••• 4444.',
    ])
    expect((await read()).card?.last4).toBe('4444')
  })

  it('ends the subscription at the term end, after which it cannot be kept', async () => {
    expect((await call('/cancel', { method: 'POST' })).status).toBe(200)
    const later = new Date('2026-12-12T15:00:01Z')
    t.setNow(later)
    try {
      const token = await mintToken(practice.admin, { now: later })
      expect((await call('', { token })).body).toMatchObject({
        status: 'canceled',
        cancel_at_period_end: false,
        cancels_at: '2026-12-12T15:00:00.000Z',
        renews_at: null,
        next_amount: null,
      })
      expect(await call('/resume', { method: 'POST', token })).toMatchObject({
        status: 409,
        body: { error: { message: SUBSCRIPTION_MESSAGES.ended } },
      })
      const [row] = await t.db
        .select({ status: practices.subscription_status })
        .from(practices)
        .where(eq(practices.id, practice.practiceId))
      expect(row?.status).toBe('cancelled')
    } finally {
      t.setNow(T0)
    }
  })

  it('answers the demo practice the subscription seeded on the test gateway', async () => {
    const [row] = await t.db
      .select({ customer: practices.stripe_customer_id, id: practices.stripe_subscription_id })
      .from(practices)
      .where(eq(practices.id, t.demo.practiceId))
    const stored = (await t.payments.listSubscriptions()).find((s) => s.id === row?.id)
    expect(stored).toMatchObject({ customerId: row?.customer, status: 'active', periods: 12 })
    // Subscribed some months into the seeded year: eleven renewals so far, the next within a month.
    const renews = stored?.currentPeriodEnd?.getTime() ?? 0
    expect(renews - Date.now()).toBeGreaterThan(0)
    expect(renews - Date.now()).toBeLessThan(31 * 24 * 60 * 60 * 1000)
    expect(await call('', { token: t.demo.adminToken })).toEqual({
      status: 200,
      body: {
        plans: [{ id: 'plan_glow_monthly_lite', name: 'Glow Monthly Lite', amount: 9900 }],
        term: 'month',
        status: 'active',
        card: {
          brand: 'Visa',
          last4: '4242',
          exp_month: 12,
          exp_year: new Date().getUTCFullYear() + 3,
        },
        current_period_end: stored?.currentPeriodEnd?.toISOString(),
        renews_at: stored?.currentPeriodEnd?.toISOString(),
        next_amount: 9900,
        coupon: null,
        cancel_at_period_end: false,
        cancels_at: null,
      },
    })
  })

  it('answers a practice without a subscription with its sign-up plan and nothing to change', async () => {
    const unsubscribed = await createPracticeFixture(t.db, { name: 'Glow Unsubscribed Spa' })
    await t.db
      .update(practices)
      .set({ plan_id: 'plan_glow_monthly_lite', subscription_months: 1 })
      .where(eq(practices.id, unsubscribed.practiceId))
    expect(await call('', { token: unsubscribed.token })).toMatchObject({
      status: 200,
      body: {
        status: 'none',
        term: 'month',
        plans: [{ id: 'plan_glow_monthly_lite', name: 'Glow Monthly Lite', amount: 9900 }],
        card: null,
        renews_at: null,
      },
    })
    expect(await call('/cancel', { method: 'POST', token: unsubscribed.token })).toMatchObject({
      status: 409,
      body: { error: { message: SUBSCRIPTION_MESSAGES.none } },
    })
  })
})

describe.each(testBackends())('the subscription across a restart on $name', (backend) => {
  const t = useTestApp(backend)

  const read = async (app: TestApp, token: string, path = '', method = 'GET', json?: unknown) => {
    const response = await app.request(`/api/practice/subscription${path}`, {
      method,
      token,
      ...(json !== undefined ? { json } : {}),
    })
    return { status: response.status, body: (await response.json()) as SubscriptionAnswer }
  }

  it('still answers a signed-up practice its plan and card, and cancels and resumes, after a restart', async () => {
    const call: ApiCall = (path, init) => Promise.resolve(t.app.request(path, init))
    const payload = await readySignUp(call, 5_300_000 + Math.floor(Math.random() * 99_999))
    const signedUp = await postJson(call, '/api/auth/local/register', payload)
    expect(signedUp.status, await signedUp.clone().text()).toBe(200)
    const token = await mintToken(
      ((await signedUp.json()) as { user: { id: number; practice_id: number } }).user,
    )
    const before = await read(t, token)
    expect(before).toMatchObject({
      status: 200,
      body: {
        plans: [{ id: 'plan_glow_monthly_lite' }],
        status: 'active',
        card: { brand: 'Visa', last4: '4242', exp_month: 12, exp_year: 2035 },
      },
    })

    const second = await t.restart()
    expect(await read(second, token)).toEqual(before)
    expect(await read(second, token, '/cancel', 'POST', {})).toMatchObject({
      status: 200,
      body: { cancel_at_period_end: true, renews_at: null },
    })

    const third = await second.restart()
    expect((await read(third, token)).body).toMatchObject({
      cancel_at_period_end: true,
      cancels_at: before.body.current_period_end,
    })
    expect(await read(third, token, '/resume', 'POST', {})).toMatchObject({
      status: 200,
      body: { cancel_at_period_end: false, renews_at: before.body.current_period_end },
    })
    // A card changed after the restart is the card on file after the next one.
    const newCard = third.payments.tokeniser.createToken({
      number: '5555555555554444',
      exp_month: 3,
      exp_year: 2031,
      cvc: '123',
    }).id
    expect((await read(third, token, '/card', 'PUT', { token: newCard })).status).toBe(200)
    const fourth = await third.restart()
    expect((await read(fourth, token)).body).toMatchObject({
      status: 'active',
      cancel_at_period_end: false,
      card: { brand: 'Mastercard', last4: '4444', exp_month: 3, exp_year: 2031 },
    })
  })

  it('answers the demo practice its subscription after a restart', async () => {
    const before = await read(t, t.demo.adminToken)
    expect(before.body).toMatchObject({ status: 'active', card: { last4: '4242' } })
    expect(await read(await t.restart(), t.demo.adminToken)).toEqual(before)
  })

  it('repeats the first answer of an idempotency key after a restart, never charging twice', async () => {
    const billing = { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '73301' }
    const token = (app: TestApp, number: string) =>
      app.payments.tokeniser.createToken({ number, exp_month: 12, exp_year: 2030, cvc: '123' }).id
    const input = { email: 'again@restart.example', billingInformation: billing }
    const first = await t.payments.createCustomer({
      ...input,
      token: token(t, '4242424242424242'),
      idempotencyKey: 'restart-pay',
    })
    const declined = t.payments.createCustomer({
      ...input,
      token: token(t, '4000000000000002'),
      idempotencyKey: 'restart-declined',
    })
    await expect(declined).rejects.toMatchObject({ status: 402 })
    const later = await t.restart()
    const customers = (await later.payments.listCustomers()).length
    expect(
      await later.payments.createCustomer({
        ...input,
        token: token(later, '4242424242424242'),
        idempotencyKey: 'restart-pay',
      }),
    ).toEqual(first)
    await expect(
      later.payments.createCustomer({
        ...input,
        token: token(later, '4242424242424242'),
        idempotencyKey: 'restart-declined',
      }),
    ).rejects.toMatchObject({
      status: 402,
      message: TEST_CARD_FAILURES['4000000000000002']?.message,
    })
    expect(await later.payments.listCustomers()).toHaveLength(customers)
  })
})
