import { describe, expect, it } from 'vitest'
import { formatPhone, toE164 } from '#domain/phone.ts'

describe('phones in one form', () => {
  it('reads the five ways a clinic writes one number as the same E.164 number', () => {
    for (const written of [
      '(408) 555-4743',
      '+1 408 555 4743',
      '408-555-4743',
      '408.555.4743',
      '14085554743',
      '4085554743',
      ' 1-408-555-4743 ',
    ]) {
      expect(toE164(written), written).toBe('+14085554743')
    }
  })

  it('reads Canadian and other countries’ numbers', () => {
    expect(toE164('(604) 555-0199', 'CA')).toBe('+16045550199')
    expect(toE164('+44 20 7946 0958')).toBe('+442079460958')
  })

  it('refuses text that is not a whole number', () => {
    for (const written of ['', '555-0101', 'call me', '408 555 4743 ext 2', '+1 408 555 47431234'])
      expect(toE164(written), written).toBeNull()
  })

  it('shows a number as its country writes it, and odd stored text as it is', () => {
    expect(formatPhone('+14085554743')).toBe('(408) 555-4743')
    expect(formatPhone('+442079460958')).toBe('+44 20 7946 0958')
    expect(formatPhone('555-0101')).toBe('555-0101')
    expect(formatPhone(null)).toBe('')
  })
})
