import { describe, expect, it } from 'vitest'
import { setGetCodeCaptchaToken, withCaptchaToken } from './get-code-captcha.ts'

describe('the human check of Get Code', () => {
  it('sends the token the widget handed out with one get-code call, then forgets it', () => {
    const input = { email: 'a@b.co', phone: '2125552368', countryCode: '+1' as const }
    expect(withCaptchaToken(input)).toEqual(input)
    setGetCodeCaptchaToken('token-1')
    expect(withCaptchaToken(input)).toEqual({ ...input, captchaToken: 'token-1' })
    expect(withCaptchaToken(input)).toEqual(input)
    setGetCodeCaptchaToken('token-2')
    setGetCodeCaptchaToken(null)
    expect(withCaptchaToken(input)).toEqual(input)
  })
})
