import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CARD_TYPES,
  type CardType,
  cardLastFour,
  cardLengths,
  cardNumberMaskLength,
  cardTypeName,
  checkCardNumber,
  cvvLengths,
  detectCardType,
  isValidCardNumber,
  maskCardNumber,
  normalizeCardNumber,
  possibleCardTypes,
} from '#domain/cards.ts'

/** Reference Luhn: the check digit that makes `payload` + digit pass. */
function luhnCheckDigit(payload: string): number {
  let sum = 0
  for (let index = 0; index < payload.length; index += 1) {
    let digit = Number(payload[payload.length - 1 - index])
    if (index % 2 === 0) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return (10 - (sum % 10)) % 10
}

function isLuhn(number: string): boolean {
  return luhnCheckDigit(number.slice(0, -1)) === Number(number.at(-1))
}

/** A prefix that decides each type (the card table's most specific pattern for it). */
const PREFIXES: Record<CardType, string> = {
  amex: '37',
  dankort: '50197170',
  dinersclub: '36',
  discover: '6011',
  elo: '636368',
  hipercard: '606282',
  jcb: '3530',
  laser: '6304',
  maestro: '6759',
  mastercard: '5555',
  mir: '2200',
  troy: '9792',
  unionpay: '6200',
  visaelectron: '4917',
  visa: '4242',
}

/** Digits after `prefix` up to `length`, with a correct Luhn check digit. */
function numberArbitrary(prefix: string, length: number) {
  return fc
    .array(fc.integer({ min: 0, max: 9 }), {
      minLength: length - prefix.length - 1,
      maxLength: length - prefix.length - 1,
    })
    .map((digits) => {
      const payload = prefix + digits.join('')
      return payload + String(luhnCheckDigit(payload))
    })
}

/** One sample number of each card type of the spec (two where the type has two ranges). */
const SAMPLE_NUMBERS: ReadonlyArray<readonly [string, CardType]> = [
  ['378282246310005', 'amex'],
  ['371449635398431', 'amex'],
  ['5019717010103742', 'dankort'],
  ['30569309025904', 'dinersclub'],
  ['6011111111111117', 'discover'],
  ['6362970000457013', 'elo'],
  ['6062826786276634', 'hipercard'],
  ['3530111333300000', 'jcb'],
  ['6304000000000000', 'laser'],
  ['6759649826438453', 'maestro'],
  ['5555555555554444', 'mastercard'],
  ['2223003122003222', 'mastercard'],
  ['2201382000000013', 'mir'],
  ['9792030000000000', 'troy'],
  ['6200000000000005', 'unionpay'],
  ['4917300800000000', 'visaelectron'],
  ['4242424242424242', 'visa'],
  ['4222222222222', 'visa'],
]

describe('card types', () => {
  it('knows the fifteen types of the spec, each with a sample number', () => {
    expect(CARD_TYPES).toHaveLength(15)
    expect(new Set(SAMPLE_NUMBERS.map(([, type]) => type))).toEqual(new Set(CARD_TYPES))
  })

  it.each(SAMPLE_NUMBERS)('%s is %s and valid', (number, type) => {
    expect(detectCardType(number)).toBe(type)
    expect(checkCardNumber(number)).toEqual({ type, problem: null })
  })

  it('detects a type only once the prefix decides it', () => {
    expect(detectCardType('')).toBeNull()
    expect(detectCardType('4')).toBeNull()
    expect(possibleCardTypes('4')).toContain('visa')
    expect(possibleCardTypes('4')).toContain('visaelectron')
    expect(detectCardType('4242')).toBe('visa')
    expect(detectCardType('34')).toBe('amex')
    expect(possibleCardTypes('abc')).toEqual([])
  })

  it('every type has a decisive prefix', () => {
    for (const type of CARD_TYPES) expect(detectCardType(PREFIXES[type])).toBe(type)
  })

  it('has the spec lengths: 15 amex, 13/16/19 visa, 16 for most', () => {
    expect(cardLengths('amex')).toEqual([15])
    expect(cardLengths('visa')).toEqual([13, 16, 19])
    for (const type of [
      'mastercard',
      'dankort',
      'elo',
      'hipercard',
      'troy',
      'visaelectron',
    ] as const)
      expect(cardLengths(type)).toEqual([16])
    for (const type of CARD_TYPES) expect(cardLengths(type)).toContain(type === 'amex' ? 15 : 16)
  })

  it('has display names', () => {
    expect(cardTypeName('amex')).toBe('American Express')
    expect(cardTypeName('visaelectron')).toBe('Visa Electron')
  })
})

describe('card number check', () => {
  it('reports the first problem', () => {
    expect(checkCardNumber('')).toEqual({ type: null, problem: 'empty' })
    expect(checkCardNumber('4242abcd')).toEqual({ type: null, problem: 'digits' })
    expect(checkCardNumber('1234567890123')).toEqual({ type: null, problem: 'type' })
    expect(checkCardNumber('424242424242')).toEqual({ type: 'visa', problem: 'length' })
    expect(checkCardNumber('4242424242424241')).toEqual({ type: 'visa', problem: 'luhn' })
  })

  it('ignores spaces and hyphens between groups', () => {
    expect(normalizeCardNumber('4242 4242-4242 4242')).toBe('4242424242424242')
    expect(isValidCardNumber('4242 4242 4242 4242')).toBe(true)
  })

  it('Stripe test cards pass, including the declined one', () => {
    expect(isValidCardNumber('4000000000000002')).toBe(true)
    expect(isValidCardNumber('4000000000009995')).toBe(true)
  })

  it('a number of a valid length with a correct check digit passes (property)', () => {
    for (const type of CARD_TYPES) {
      for (const length of cardLengths(type)) {
        fc.assert(
          fc.property(numberArbitrary(PREFIXES[type], length), (number) => {
            expect(checkCardNumber(number)).toEqual({ type, problem: null })
          }),
          { numRuns: 25 },
        )
      }
    }
  })

  it('a wrong check digit fails the Luhn check, except for UnionPay (property)', () => {
    for (const type of CARD_TYPES) {
      const length = cardLengths(type).includes(16) ? 16 : (cardLengths(type)[0] ?? 16)
      fc.assert(
        fc.property(
          numberArbitrary(PREFIXES[type], length),
          fc.integer({ min: 1, max: 9 }),
          (valid, shift) => {
            const last = (Number(valid.at(-1)) + shift) % 10
            const wrong = valid.slice(0, -1) + String(last)
            expect(isLuhn(wrong)).toBe(false)
            expect(checkCardNumber(wrong).problem).toBe(type === 'unionpay' ? null : 'luhn')
          },
        ),
        { numRuns: 25 },
      )
    }
  })

  it('a length the type does not allow fails with "length" (property)', () => {
    for (const type of CARD_TYPES) {
      const lengths = cardLengths(type)
      const wrongLengths = [12, 13, 14, 15, 16, 17, 18, 19].filter((n) => !lengths.includes(n))
      for (const length of wrongLengths) {
        fc.assert(
          fc.property(numberArbitrary(PREFIXES[type], length), (number) => {
            expect(checkCardNumber(number)).toEqual({ type, problem: 'length' })
          }),
          { numRuns: 10 },
        )
      }
    }
  })
})

describe('CVV and masks', () => {
  it('CVV has 4 digits for amex, 3 for others, 3 or 4 when unknown', () => {
    expect(cvvLengths('amex')).toEqual([4])
    for (const type of CARD_TYPES.filter((t) => t !== 'amex')) expect(cvvLengths(type)).toEqual([3])
    expect(cvvLengths(null)).toEqual([3, 4])
  })

  it('masks the card number to 16 digits, 19 while it may be a visa', () => {
    expect(cardNumberMaskLength('')).toBe(19)
    expect(cardNumberMaskLength('4242')).toBe(19)
    expect(cardNumberMaskLength('5555')).toBe(16)
    expect(cardNumberMaskLength('37')).toBe(16)
  })

  it('shows only the last four digits', () => {
    expect(cardLastFour('4242 4242 4242 4242')).toBe('4242')
    expect(maskCardNumber('378282246310005')).toBe('•••• 0005')
  })
})
