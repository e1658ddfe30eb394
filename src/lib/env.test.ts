import { describe, expect, it } from 'vitest'
import { isCaptchaOff, parseEnv, runtimeSettings } from './env.ts'

describe('env', () => {
  it('has safe defaults when nothing is set', () => {
    expect(parseEnv({})).toEqual({
      VITE_API_URL: '/api',
      VITE_HCAPTCHA_SITEKEY: undefined,
      VITE_STRIPE_PUBLISHABLE_KEY: undefined,
      VITE_TESTER_MODE: false,
      VITE_PRODUCTION: false,
      VITE_LOCAL: false,
      VITE_ANALYTICS_KEY: undefined,
      VITE_PUSH_KEY: undefined,
      VITE_SUPPORT_EMAIL: 'support@glowrewards.com',
      VITE_IDLE_TIMEOUT_MINUTES: 15,
    })
  })

  it('writes to the configured support address, and to the default when it is empty', () => {
    expect(parseEnv({ VITE_SUPPORT_EMAIL: ' help@clinic.example ' }).VITE_SUPPORT_EMAIL).toBe(
      'help@clinic.example',
    )
    expect(parseEnv({ VITE_SUPPORT_EMAIL: '' }).VITE_SUPPORT_EMAIL).toBe('support@glowrewards.com')
    expect(() => parseEnv({ VITE_SUPPORT_EMAIL: 'help' })).toThrow(/VITE_SUPPORT_EMAIL/)
  })

  it('reads flags, numbers and empty keys the way .env files write them', () => {
    const env = parseEnv({
      VITE_API_URL: 'https://api.example.com/api',
      VITE_HCAPTCHA_SITEKEY: '',
      VITE_TESTER_MODE: 'true',
      VITE_PRODUCTION: '1',
      VITE_LOCAL: 'false',
      VITE_IDLE_TIMEOUT_MINUTES: '30',
    })
    expect(env.VITE_API_URL).toBe('https://api.example.com/api')
    expect(env.VITE_HCAPTCHA_SITEKEY).toBeUndefined()
    expect(env.VITE_TESTER_MODE).toBe(true)
    expect(env.VITE_PRODUCTION).toBe(true)
    expect(env.VITE_LOCAL).toBe(false)
    expect(env.VITE_IDLE_TIMEOUT_MINUTES).toBe(30)
  })

  it('fails fast on a mistyped value', () => {
    expect(() => parseEnv({ VITE_TESTER_MODE: 'maybe' })).toThrow(/VITE_TESTER_MODE/)
    expect(() => parseEnv({ VITE_IDLE_TIMEOUT_MINUTES: 'soon' })).toThrow(
      /VITE_IDLE_TIMEOUT_MINUTES/,
    )
  })

  it('turns the captcha off without a site key, on localhost and in tester mode', () => {
    const on = { VITE_HCAPTCHA_SITEKEY: 'site-key', VITE_TESTER_MODE: false }
    expect(isCaptchaOff('portal.example.com', on)).toBe(false)
    expect(isCaptchaOff('localhost', on)).toBe(true)
    expect(isCaptchaOff('127.0.0.1', on)).toBe(true)
    expect(isCaptchaOff('portal.example.com', { ...on, VITE_TESTER_MODE: true })).toBe(true)
    expect(isCaptchaOff('portal.example.com', { ...on, VITE_HCAPTCHA_SITEKEY: undefined })).toBe(
      true,
    )
  })

  it("takes the hCaptcha site key the server announces in the page's head over the build's", () => {
    const doc = new DOMParser().parseFromString(
      '<html><head><meta name="glow:hcaptcha-sitekey" content="10000000-ffff-ffff-ffff-000000000001"></head></html>',
      'text/html',
    )
    expect(runtimeSettings(doc)).toEqual({
      VITE_HCAPTCHA_SITEKEY: '10000000-ffff-ffff-ffff-000000000001',
    })
    expect(
      parseEnv({ VITE_HCAPTCHA_SITEKEY: 'built-in', ...runtimeSettings(doc) })
        .VITE_HCAPTCHA_SITEKEY,
    ).toBe('10000000-ffff-ffff-ffff-000000000001')
    const support = new DOMParser().parseFromString(
      '<html><head><meta name="glow:support-email" content="help@clinic-group.example"></head></html>',
      'text/html',
    )
    expect(runtimeSettings(support)).toEqual({ VITE_SUPPORT_EMAIL: 'help@clinic-group.example' })
    expect(parseEnv({ ...runtimeSettings(support) }).VITE_SUPPORT_EMAIL).toBe(
      'help@clinic-group.example',
    )
    const bare = new DOMParser().parseFromString('<html><head></head></html>', 'text/html')
    expect(runtimeSettings(bare)).toEqual({})
    expect(runtimeSettings(undefined)).toEqual({})
  })
})
