import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isNanpNumber } from '#domain/fields.ts'
import { nanpTestPhone } from '#domain/sign-up/sample-values.ts'
import type { AppType } from '#server/app.ts'
import { GET_CODE_MESSAGES, SIGN_UP_LIMITS } from '#server/modules/sign-up/routes.ts'
import { HCAPTCHA_TEST_SECRET, HCAPTCHA_TEST_TOKEN } from '#server/security/captcha.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { testBackends } from '#server/testing/test-app.ts'

const T0 = new Date('2026-10-01T09:00:00Z')

/** What was measured for the report. */
const measured: string[] = []

describe('North American numbers (NANP)', () => {
  it('accepts 10 digits (or 11 with the leading 1) with valid area and exchange codes', () => {
    for (const ok of ['2125552368', '12125552368', '4155550123', '5552100199', '9052345678']) {
      expect(isNanpNumber(ok), ok).toBe(true)
    }
  })

  it('refuses short numbers, other countries and codes the plan does not allow', () => {
    for (const bad of [
      '5552368', // no area code
      '442071234567', // a UK number
      '1234567890', // area code starting with 1
      '0125552368', // area code starting with 0
      '9115552368', // N11 area code
      '2120552368', // exchange starting with 0
      '2121552368', // exchange starting with 1
      '2124115555', // N11 exchange
      '3745552368', // 37X is reserved
      '22125552368', // 11 digits not starting with 1
    ]) {
      expect(isNanpNumber(bad), bad).toBe(false)
    }
  })

  it('gives tests numbers the plan allows', () => {
    for (const raw of ['5550100101', '5551110000', '5550110000', '5552345678']) {
      expect(isNanpNumber(nanpTestPhone(raw)), raw).toBe(true)
    }
  })
})

/** SMS pumping through `POST /auth/get-code`. */
describe.each(testBackends())('get-code against SMS pumping on $name', (backend) => {
  const t = useTestApp(backend)
  let app: AppType
  let counter = 0
  const savedCaptcha = process.env.HCAPTCHA_SECRET
  afterAll(async () => {
    if (measured.length) console.info(`SMS pumping (${backend.name}):\n  ${measured.join('\n  ')}`)
    measured.length = 0
  })
  beforeEach(() => {
    t.setNow(new Date(T0.getTime() + Math.floor(Math.random() * 10_000) * 3600_000))
    app = t.makeApp({ trustProxy: true })
  })
  afterEach(() => {
    delete process.env.SMS_HOURLY_BUDGET
    if (savedCaptcha === undefined) delete process.env.HCAPTCHA_SECRET
    else process.env.HCAPTCHA_SECRET = savedCaptcha
  })

  // A number of its own for every request: the per-phone limits must not be what stops them.
  const freshPhone = () =>
    nanpTestPhone(`558${String((Date.now() + ++counter * 7919) % 10_000_000).padStart(7, '0')}`)

  const getCode = (
    from: string,
    body: Record<string, unknown> = {},
    on: AppType = app,
  ): Promise<Response> =>
    Promise.resolve(
      on.request('/api/auth/get-code', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from },
        body: JSON.stringify({
          email: 'pump@example.com',
          phone: freshPhone(),
          countryCode: '+1',
          ...body,
        }),
      }),
    )

  it('texts only +1 numbers with a real area and exchange code', async () => {
    for (const phone of ['5550100101', '9115552368', '5552368', '2124115555']) {
      const refused = await getCode('198.51.100.1', { phone })
      expect(refused.status, phone).toBe(400)
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        GET_CODE_MESSAGES.notNorthAmerican,
      )
    }
    expect((await getCode('198.51.100.1', { countryCode: '+44' })).status).toBe(400)
    expect((await getCode('198.51.100.1', { phone: '2125552368' })).status).toBe(200)
  })

  it(`lets one address have ${SIGN_UP_LIMITS.getCode.max} SMS sent an hour`, async () => {
    let sent = 0
    for (; sent < 120; sent++) {
      const response = await getCode('198.51.100.2')
      if (response.status === 429) break
      expect(response.status).toBe(200)
    }
    measured.push(`SMS one address can have sent in an hour: ${sent}`)
    expect(sent).toBe(SIGN_UP_LIMITS.getCode.max)
  })

  it('stops every practice-less caller at the hourly SMS budget and alerts in the log', async () => {
    process.env.SMS_HOURLY_BUDGET = '4'
    const budgeted = t.makeApp({ trustProxy: true })
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await getCode(`203.0.113.${i + 1}`, {}, budgeted)).status)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
    const refused = await getCode('203.0.113.99', {}, budgeted)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      GET_CODE_MESSAGES.budgetSpent,
    )
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    const alerts = t.log.lines.filter((line) => line.includes('hourly SMS budget'))
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatch(/^error: Alert: the hourly SMS budget \(4 codes/)
  })

  it('requires the human check when hCaptcha is configured', async () => {
    process.env.HCAPTCHA_SECRET = HCAPTCHA_TEST_SECRET
    const guarded = t.makeApp({ trustProxy: true })
    const missing = await getCode('198.51.100.3', {}, guarded)
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      'This field is required.',
    )
    expect((await getCode('198.51.100.3', { captchaToken: 'forged' }, guarded)).status).toBe(400)
    expect(
      (await getCode('198.51.100.3', { captchaToken: HCAPTCHA_TEST_TOKEN }, guarded)).status,
    ).toBe(200)
  })
})
