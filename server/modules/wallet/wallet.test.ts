/**
 * The patient's wallet after sign-in: what a patient session opens (only /wallet/me…, never a
 * staff route), how it ends (logout, archive, idle and absolute expiry on the server's clock), and
 * what the patient does: claim an offer, change consent, update a past-due membership's card
 * (charged once, whatever the replays), cancel and pause within the plan's rules.
 */
import { and, desc, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { MEMBERSHIP_AGREEMENT } from '#domain/memberships.ts'
import { WALLET_MESSAGES, type WalletMe } from '#domain/wallet.ts'
import {
  auditEvents,
  membershipCharges,
  outbox,
  patientSessions,
  promotions,
} from '#server/db/schema.ts'
import { pointsStatementEmail, walletLink } from '#server/modules/patient-mail/index.ts'
import { apiRoutes, fillPath, PATIENT_ROUTES, PUBLIC_ROUTES } from '#server/testing/api-routes.ts'
import { CARDS, cardToken, PLAN } from '#server/testing/memberships.ts'
import { grantPoints, useMember, usePracticeFixture, useTestApp } from '#server/testing/suite.ts'
import { insertPatient, type TestApp, testBackends } from '#server/testing/test-app.ts'

const unique = () => Math.random().toString(36).slice(2, 10)

type Answer = {
  status: number
  body: Record<string, unknown> & {
    error?: { message: string; details: Record<string, unknown> }
    wallet?: WalletMe
    message?: string
  }
}

async function call(
  t: TestApp,
  path: string,
  init: { method?: string; json?: unknown; token?: string } = {},
): Promise<Answer> {
  const response = await t.request(`/api${path}`, init)
  return { status: response.status, body: (await response.json()) as Answer['body'] }
}

describe.each(testBackends())('the wallet on $name', (backend) => {
  const t = useTestApp(backend)
  const other = usePracticeFixture(t)
  const manager = useMember(t, 'Manager')

  /** A patient of the demo practice, signed in to the wallet with the code from the outbox. */
  async function signedIn(values: { phone?: string } = {}) {
    const email = `lena.${unique()}@example.com`
    const patient = await insertPatient(t.db, {
      practice_id: t.demo.practiceId,
      first_name: 'Lena',
      last_name: 'Park',
      email,
      phone: values.phone ?? null,
    })
    expect(
      (
        await call(t, `/wallet/${t.demo.practiceId}/code`, {
          method: 'POST',
          json: { contact: email },
        })
      ).status,
    ).toBe(202)
    await t.deliver()
    const [sent] = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.to, email))
      .orderBy(desc(outbox.id))
      .limit(1)
    const code = /^(\d{6}) is your/.exec(sent?.subject ?? '')?.[1]
    const opened = await call(t, `/wallet/${t.demo.practiceId}/session`, {
      method: 'POST',
      json: { contact: email, code },
    })
    expect(opened.status).toBe(200)
    return { id: patient.id, email, token: opened.body.token as string }
  }

  const me = (token: string) => call(t, '/wallet/me', { token })

  it('answers 401 or 403 to a patient token on every staff route, and 403 to a staff token on the wallet', async () => {
    const { token } = await signedIn()
    const answers: string[] = []
    const walked = apiRoutes(t.app).filter((route) => !PATIENT_ROUTES.has(route.key))
    expect(walked.length).toBeGreaterThan(100)
    for (const route of walked) {
      const response = await t.app.request(
        fillPath(route.path, () => '1'),
        {
          method: route.method,
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          ...(route.method === 'GET' ? {} : { body: '{}' }),
        },
      )
      answers.push(`${route.key} → ${response.status}`)
    }
    // Public routes answer without a session anyway; every other one refuses the patient token.
    const opened = answers.filter((line, i) => {
      const key = walked[i]?.key ?? ''
      return !PUBLIC_ROUTES.has(key) && !/→ 40[13]$/.test(line)
    })
    expect(opened).toEqual([])
    // The session still works: the walk changed nothing of it.
    expect((await me(token)).status).toBe(200)
    // The staff's own tokens open none of the patient's calls.
    for (const staff of [t.demo.adminToken, t.demo.staffToken]) {
      expect(await me(staff)).toMatchObject({
        status: 403,
        body: { error: { message: WALLET_MESSAGES.staffToken } },
      })
    }
    expect(await me('gwp_not-a-session-at-all-not-a-session-at-all-xx')).toMatchObject({
      status: 401,
      body: { error: { message: WALLET_MESSAGES.signedOut, details: { reason: 'signed_out' } } },
    })
  })

  it("shows the patient's own points, their worth, what expires, the history and the practice", async () => {
    const p = await signedIn()
    await grantPoints(t, p.id, 250)
    const answer = await me(p.token)
    expect(answer.status).toBe(200)
    const wallet = answer.body as unknown as WalletMe
    expect(wallet.practice.id).toBe(t.demo.practiceId)
    expect(wallet.patient).toMatchObject({
      first_name: 'Lena',
      points: 250,
      has_email: true,
      has_phone: false,
    })
    expect(wallet.patient.points_value_cents).toBeGreaterThan(0)
    expect(wallet.patient.referral_url).toContain(`/wallet/${t.demo.practiceId}?ref=`)
    expect(wallet.history[0]).toMatchObject({ kind: 'adjust', points: 250 })
    expect(wallet.history[0]?.text).toContain('250')
    expect(wallet.membership).toBeNull()
  })

  it('ends the session at logout, and when the practice archives the patient or merges it away', async () => {
    const a = await signedIn()
    const out = await call(t, '/wallet/logout', { method: 'POST', token: a.token })
    expect(out).toEqual({ status: 200, body: { signed_out: true } })
    expect((await me(a.token)).status).toBe(401)
    expect((await call(t, '/wallet/logout', { method: 'POST', token: a.token })).status).toBe(401)
    const [loggedOut] = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'wallet.signed_out'))
      .orderBy(desc(auditEvents.id))
      .limit(1)
    expect(loggedOut?.details).toMatchObject({ patient_id: a.id })

    const b = await signedIn()
    expect((await me(b.token)).status).toBe(200)
    const archived = await t.request(`/api/patients/${b.id}/archive`, {
      method: 'POST',
      token: t.demo.adminToken,
    })
    expect(archived.status).toBe(200)
    expect((await me(b.token)).status).toBe(401)
    const [session] = await t.db
      .select()
      .from(patientSessions)
      .where(eq(patientSessions.patient_id, b.id))
    expect(session).toMatchObject({ revoked_reason: 'archived' })
    expect(session?.revoked_at).not.toBeNull()
    // Restoring the patient opens no old session again.
    await t.request(`/api/patients/${b.id}/restore`, { method: 'POST', token: t.demo.adminToken })
    expect((await me(b.token)).status).toBe(401)

    // Merged into another patient: the merged one's session ends, and does not become the kept one's.
    const kept = await signedIn()
    const merged = await signedIn()
    const merge = await t.request(`/api/patients/${kept.id}/merge/${merged.id}`, {
      method: 'POST',
      token: t.demo.adminToken,
      json: {},
    })
    expect(merge.status).toBe(201)
    expect((await me(merged.token)).status).toBe(401)
    expect((await me(kept.token)).status).toBe(200)
    const moved = await t.db
      .select()
      .from(patientSessions)
      .where(eq(patientSessions.patient_id, kept.id))
    expect(moved.map((row) => row.revoked_reason).sort()).toEqual(['merged', null])
  })

  it('slides the session: 30 minutes without a call ends it, and 12 hours end it however active', async () => {
    const start = new Date(Date.now() + 86_400_000)
    t.setNow(start)
    try {
      const p = await signedIn()
      const at = (minutes: number) => t.setNow(new Date(start.getTime() + minutes * 60_000))
      at(25)
      expect((await me(p.token)).status).toBe(200)
      at(50)
      const renewed = await me(p.token)
      expect(renewed.status).toBe(200)
      expect((renewed.body as unknown as WalletMe).session.expires_at).toBe(
        new Date(start.getTime() + 80 * 60_000).toISOString(),
      )
      at(81)
      expect((await me(p.token)).status).toBe(401)

      at(0)
      const q = await signedIn()
      const statuses: number[] = []
      for (let minute = 25; minute <= 700; minute += 25) {
        at(minute)
        statuses.push((await me(q.token)).status)
      }
      // Every call within 12 hours of the sign-in answered (each within 30 minutes of the last).
      expect(statuses).toEqual(statuses.map(() => 200))
      // 21 minutes after the last call, but past 12 hours after the sign-in: over.
      at(12 * 60 + 1)
      expect((await me(q.token)).status).toBe(401)
    } finally {
      t.setNow(undefined)
    }
  })

  it('lists the offers the patient may claim, claims one once, and refuses another practice’s', async () => {
    const p = await signedIn()
    const title = `Glow week ${unique()}`
    const [offer] = await t.db
      .insert(promotions)
      .values({
        practice_id: t.demo.practiceId,
        title,
        description: 'A facial at half price.',
        points: 50,
        published_at: new Date(Date.now() - 86_400_000),
      })
      .returning()
    const [coded] = await t.db
      .insert(promotions)
      .values({
        practice_id: t.demo.practiceId,
        title: `Secret ${unique()}`,
        code: 'VIP-2026',
        published_at: new Date(Date.now() - 86_400_000),
      })
      .returning()
    const listed = (await me(p.token)).body as unknown as WalletMe
    const mine = listed.offers.find((o) => o.promotion_id === offer?.id)
    expect(mine).toMatchObject({ title, claimed: false, can_claim: true, reason: null })
    // A code-only offer the practice did not send to the patient is not theirs to see.
    expect(listed.offers.some((o) => o.promotion_id === coded?.id)).toBe(false)
    const claimed = await call(t, `/wallet/me/offers/${offer?.id}/claim`, {
      method: 'POST',
      token: p.token,
    })
    expect(claimed.status).toBe(200)
    expect(claimed.body.message).toBe(WALLET_MESSAGES.offerClaimed)
    expect(claimed.body.wallet?.offers.find((o) => o.promotion_id === offer?.id)).toMatchObject({
      claimed: true,
      can_claim: false,
    })
    // Again: the same answer, nothing new.
    const again = await call(t, `/wallet/me/offers/${offer?.id}/claim`, {
      method: 'POST',
      token: p.token,
    })
    expect(again.status).toBe(200)
    const audited = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'promotion.claimed'))
    const byPatient = audited.filter(
      (row) => (row.details as { patient_id?: number }).patient_id === p.id,
    )
    expect(byPatient).toHaveLength(1)
    expect(byPatient[0]?.user_id).toBeNull()
    for (const id of [other.promotionId, coded?.id]) {
      expect(
        await call(t, `/wallet/me/offers/${id}/claim`, { method: 'POST', token: p.token }),
      ).toMatchObject({ status: 404, body: { error: { message: WALLET_MESSAGES.offerNotFound } } })
    }
  })

  it('saves e-mail and SMS consent per channel, refusing a channel without its contact', async () => {
    const p = await signedIn()
    const noPhone = await call(t, '/wallet/me/consent', {
      method: 'PUT',
      token: p.token,
      json: { email_subscription: true, sms_subscription: true },
    })
    expect(noPhone).toMatchObject({
      status: 409,
      body: { error: { message: WALLET_MESSAGES.smsNeedsPhone } },
    })
    const q = await signedIn({
      phone: `+1415555${String(Math.floor(Math.random() * 9000) + 1000)}`,
    })
    const on = await call(t, '/wallet/me/consent', {
      method: 'PUT',
      token: q.token,
      json: { email_subscription: false, sms_subscription: true },
    })
    expect(on.status).toBe(200)
    expect(on.body.wallet?.patient).toMatchObject({
      email_subscription: false,
      sms_subscription: true,
    })
    const off = await call(t, '/wallet/me/consent', {
      method: 'PUT',
      token: q.token,
      json: { email_subscription: true, sms_subscription: false },
    })
    expect(off.body.wallet?.patient).toMatchObject({
      email_subscription: true,
      sms_subscription: false,
    })
    const changes = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'wallet.consent_changed'))
    expect(
      changes.filter((row) => (row.details as { patient_id: number }).patient_id === q.id),
    ).toHaveLength(2)
    expect(
      (
        await call(t, '/wallet/me/consent', {
          method: 'PUT',
          token: q.token,
          json: { email_subscription: 'yes' },
        })
      ).status,
    ).toBe(400)
  })

  /** A monthly plan (3 payments minimum, `noticeDays` notice) and the patient enrolled on it. */
  async function member(p: { id: number }, noticeDays = 0) {
    await t.request('/api/practice/payments/connect', { method: 'POST', token: t.demo.adminToken })
    const plan = await t.request('/api/membership-plans', {
      method: 'POST',
      token: manager.token,
      json: { ...PLAN, name: `Wallet plan ${unique()}`, notice_days: noticeDays },
    })
    expect(plan.status).toBe(201)
    const planId = ((await plan.json()) as { id: number }).id
    const enrolled = await t.request(`/api/patients/${p.id}/memberships`, {
      method: 'POST',
      token: t.demo.staffToken,
      json: {
        plan_id: planId,
        payment_method_token: cardToken(t, CARDS.ok),
        consent: { text_version: MEMBERSHIP_AGREEMENT.version, accepted_by_name: 'Lena Park' },
        idempotencyKey: `wallet-${unique()}`,
      },
    })
    expect(enrolled.status).toBe(201)
    return ((await enrolled.json()) as { id: number }).id
  }

  it("updates a past-due membership's card from the wallet and charges the cycle once, however often it is sent", async () => {
    const p = await signedIn()
    const membershipId = await member(p)
    const failing = await t.request(`/api/memberships/${membershipId}/card`, {
      method: 'PUT',
      token: manager.token,
      json: { payment_method_token: cardToken(t, CARDS.failsWhenCharged) },
    })
    expect(failing.status).toBe(200)
    await t.request('/api/dev/clock', { method: 'POST', json: { days: 31 } })
    const due = (await me(p.token)).body as unknown as WalletMe
    expect(due.membership).toMatchObject({
      id: membershipId,
      status: 'past_due',
      amount_due_cents: PLAN.price_cents,
      can_update_card: true,
    })
    expect(due.membership?.status_text).toContain('Past due')
    // A card that is declined too: saved, and the answer says the payment was declined.
    const declined = await call(t, '/wallet/me/card', {
      method: 'PUT',
      token: p.token,
      json: { payment_method_token: cardToken(t, CARDS.failsWhenCharged) },
    })
    expect(declined.status).toBe(402)
    expect(declined.body.error?.message).toMatch(
      /^Your card is saved, but the payment was declined/,
    )
    const token = cardToken(t, CARDS.ok)
    const first = await call(t, '/wallet/me/card', {
      method: 'PUT',
      token: p.token,
      json: { payment_method_token: token },
    })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      charged: true,
      message: WALLET_MESSAGES.cardCharged('$99.00'),
    })
    expect(first.body.wallet?.membership).toMatchObject({ status: 'active', amount_due_cents: 0 })
    // The same request again (a double tap, a retry after a lost answer): nothing more charged.
    for (let i = 0; i < 2; i++) {
      const replay = await call(t, '/wallet/me/card', {
        method: 'PUT',
        token: p.token,
        json: { payment_method_token: token },
      })
      expect(replay.status, JSON.stringify(replay.body)).toBe(200)
      expect(replay.body).toMatchObject({ charged: false, message: WALLET_MESSAGES.cardSaved })
    }
    const charges = await t.db
      .select()
      .from(membershipCharges)
      .where(
        and(
          eq(membershipCharges.membership_id, membershipId),
          eq(membershipCharges.status, 'succeeded'),
        ),
      )
    expect(charges.map((c) => c.cycle).sort()).toEqual([1, 2])
    const audited = await t.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'wallet.card_updated'))
      .orderBy(auditEvents.id)
    expect(
      audited
        .filter((row) => (row.details as { patient_id: number }).patient_id === p.id)
        .map((row) => (row.details as { charged: boolean }).charged),
    ).toEqual([false, true, false, false])
  })

  it("cancels at the end the plan's minimum term and notice allow, and pauses only what may be paused", async () => {
    const p = await signedIn()
    const membershipId = await member(p, 10)
    const before = ((await me(p.token)).body as unknown as WalletMe).membership
    expect(before).toMatchObject({ id: membershipId, can_cancel: true, can_pause: true })
    expect(before?.cancel_rules_text).toContain('minimum term is 3 payments')
    expect(before?.cancel_rules_text).toContain("10 days' notice")
    const cancelled = await call(t, '/wallet/me/membership/cancel', {
      method: 'POST',
      token: p.token,
    })
    expect(cancelled.status).toBe(200)
    const after = cancelled.body.wallet?.membership
    // The end is the one the wallet announced: 3 monthly payments after the start.
    expect(after?.cancel_at).toBe(before?.cancel_effective_at)
    expect(after).toMatchObject({ status: 'active', can_cancel: false, can_pause: false })
    expect(cancelled.body.message).toMatch(/^Your membership is cancelled: it ends on /)
    const twice = await call(t, '/wallet/me/membership/cancel', { method: 'POST', token: p.token })
    expect(twice.status).toBe(409)
    expect(twice.body.error?.message).toMatch(/already cancelled: it ends on/)
    const pause = await call(t, '/wallet/me/membership/pause', {
      method: 'POST',
      token: p.token,
      json: { cycles: 1 },
    })
    expect(pause.status).toBe(409)
    expect(pause.body.error?.message).toMatch(/cannot be paused/)

    const q = await signedIn()
    await member(q)
    expect(
      (
        await call(t, '/wallet/me/membership/pause', {
          method: 'POST',
          token: q.token,
          json: { cycles: 4 },
        })
      ).status,
    ).toBe(400)
    const paused = await call(t, '/wallet/me/membership/pause', {
      method: 'POST',
      token: q.token,
      json: { cycles: 2 },
    })
    expect(paused.status).toBe(200)
    expect(paused.body.wallet?.membership).toMatchObject({ status: 'paused', can_pause: false })
    expect(paused.body.message).toMatch(/^Your membership is paused: billing starts again on /)
    // Paused within the minimum term: cancelling online waits for it, with the sentence.
    const early = await call(t, '/wallet/me/membership/cancel', { method: 'POST', token: q.token })
    expect(early.status).toBe(409)
    expect(early.body.error?.message).toMatch(/minimum term of 3 payments/)
    const audited = (
      await t.db.select().from(auditEvents).orderBy(desc(auditEvents.id)).limit(50)
    ).filter((row) =>
      ['wallet.membership_cancelled', 'wallet.membership_paused'].includes(row.action),
    )
    expect(audited.map((row) => row.action).sort()).toEqual([
      'wallet.membership_cancelled',
      'wallet.membership_paused',
    ])
    expect(audited.every((row) => row.user_id === null)).toBe(true)
    // A patient with no membership is told so.
    const r = await signedIn()
    expect(
      await call(t, '/wallet/me/membership/cancel', { method: 'POST', token: r.token }),
    ).toMatchObject({ status: 409, body: { error: { message: WALLET_MESSAGES.noMembership } } })
  })

  it('leads to the wallet from the offer e-mail, the offer page and the points statement', async () => {
    const email = `wren.${unique()}@other.example`
    await insertPatient(t.db, {
      practice_id: other.practiceId,
      first_name: 'Wren',
      last_name: 'Reader',
      email,
    })
    const created = await t.request('/api/promotions', {
      method: 'POST',
      token: other.token,
      json: { title: `Wallet week ${unique()}`, ends_at: '2099-03-01T12:00:00.000Z' },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    await t.request(`/api/promotions/${id}/publish`, { method: 'POST', token: other.token })
    const sent = await t.request(`/api/promotions/${id}/send`, {
      method: 'POST',
      token: other.token,
    })
    expect(sent.status).toBe(200)
    await t.deliver()
    const [mail] = await t.db.select().from(outbox).where(eq(outbox.to, email))
    const wallet = `${t.config.publicUrl}/wallet/${other.practiceId}`
    expect(mail?.text).toContain(`See all your points and offers in your wallet: ${wallet}`)
    expect(mail?.html).toContain(wallet)
    const token = new URL(mail?.link ?? '').pathname.split('/').pop() ?? ''
    const page = await (await t.request(`/offers/${token}`)).text()
    expect(page).toContain(`<a href="/wallet/${other.practiceId}">See all my points</a>`)
    // The points statement's button is the wallet.
    const statement = pointsStatementEmail.render({
      publicUrl: t.config.publicUrl,
      practice: { practice_name: 'Glow', wallet_url: walletLink(t.config.publicUrl, 7) },
      unsubscribeId: 'abcdefghijklmnopqrstuv',
      firstName: 'Wren',
      earned: 10,
      balance: 10,
      visitedAt: new Date().toISOString(),
    })
    expect(statement.link).toBe(`${t.config.publicUrl}/wallet/7`)
    expect(statement.html).toContain('See all my points')
  })
})
