import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  AgreementSignatureSchema,
  BillingInformationSchema,
  CardNumberSchema,
  createBillingInformationSchema,
  createCardSchema,
  expandExpiryYear,
  isExpiryInFuture,
  PromoCodeSchema,
} from '#domain/sign-up/billing-information.ts'
import { createSignUpSampleValues } from '#domain/sign-up/sample-values.ts'

const valid = createSignUpSampleValues(3).billingInformation
const card = valid.card
const june2026 = () => new Date(2026, 5, 15)
const cardSchema = createCardSchema({ now: june2026 })
const billingSchema = createBillingInformationSchema({ now: june2026 })

function errorsOf(schema: v.GenericSchema, value: unknown): Record<string, string> {
  const result = v.safeParse(schema, value)
  const out: Record<string, string> = {}
  if (result.success) return out
  for (const issue of result.issues) out[v.getDotPath(issue) ?? ''] ??= issue.message
  return out
}

describe('card', () => {
  it('accepts the fixture and outputs numbers for the expiry', () => {
    expect(v.parse(cardSchema, card)).toEqual({
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvv: '123',
      name: 'Jane Doe',
    })
  })

  it('reports every empty field', () => {
    expect(
      errorsOf(cardSchema, { number: '', exp_month: '', exp_year: '', cvv: '', name: '' }),
    ).toEqual({
      number: 'Please fill card number field',
      exp_month: 'Please fill expiration month field',
      exp_year: 'Please fill expiration year field',
      cvv: 'Please fill CVV field',
      name: 'Please fill cardholder name field',
    })
  })

  it.each([
    ['name', 'J', 'Cardholder name should contain minimum 2 characters'],
    ['name', 'Jane D0e', "Cardholder name should contain only letters, spaces, -, _, ` and '"],
    ['number', '4242x4242', 'Card number should contain only numbers'],
    ['number', '4242424242424241', 'Card number is invalid'],
    ['number', '1234567890123456', 'Card number is invalid'],
    ['number', '42424242424242', 'Card number should contain 13, 16 or 19 digits'],
    ['exp_month', '13', 'Expiration month should be from 1 to 12'],
    ['exp_month', '0', 'Expiration month should be from 1 to 12'],
    ['exp_year', '2033', 'Expiration year should be from 2020 to 2032'],
    ['exp_year', '2019', 'Expiration year should be from 2020 to 2032'],
    ['exp_year', '203', 'Expiration year should be from 2020 to 2032'],
    ['cvv', '12a', 'CVV should contain only numbers'],
    ['cvv', '1234', 'CVV should contain 3 digits'],
  ])('%s %j → %s', (field, value, message) => {
    expect(errorsOf(cardSchema, { ...card, [field]: value })).toEqual({ [field]: message })
  })

  it('accepts a cardholder with spaces, hyphen, underscore, backtick and apostrophe', () => {
    expect(errorsOf(cardSchema, { ...card, name: "Anne-Marie O'Neil_D`Arcy" })).toEqual({})
  })

  it('asks amex for 4 CVV digits and an unknown type for 3 or 4', () => {
    const amex = { ...card, number: '378282246310005' }
    expect(errorsOf(cardSchema, { ...amex, cvv: '123' })).toEqual({
      cvv: 'CVV should contain 4 digits',
    })
    expect(errorsOf(cardSchema, { ...amex, cvv: '1234' })).toEqual({})
    expect(errorsOf(cardSchema, { ...amex, number: '37828224631000', cvv: '1234' })).toEqual({
      number: 'Card number should contain 15 digits',
    })
    expect(errorsOf(cardSchema, { ...card, number: '9999999999999995', cvv: '12' })).toEqual({
      number: 'Card number is invalid',
      cvv: 'CVV should contain 3 or 4 digits',
    })
  })

  it('refuses a past expiry; the current month is still valid', () => {
    expect(errorsOf(cardSchema, { ...card, exp_month: '5', exp_year: '2026' })).toEqual({
      exp_year: 'Card expiration date should be in the future',
    })
    expect(errorsOf(cardSchema, { ...card, exp_month: 6, exp_year: 2026 })).toEqual({})
    expect(errorsOf(cardSchema, { ...card, exp_month: '1', exp_year: '2025' })).toEqual({
      exp_year: 'Card expiration date should be in the future',
    })
  })

  it('expands a two-digit year with the current century', () => {
    expect(expandExpiryYear('27', new Date(2026, 0, 1))).toBe(2027)
    expect(expandExpiryYear('2031', new Date(2026, 0, 1))).toBe(2031)
    expect(v.parse(cardSchema, { ...card, exp_year: '28' }).exp_year).toBe(2028)
  })

  it('a month/year is in the future exactly when it is not before this month (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 2020, max: 2032 }),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 2020, max: 2032 }),
        (month, year, nowMonth, nowYear) => {
          const now = new Date(nowYear, nowMonth, 10)
          expect(isExpiryInFuture(month, year, now)).toBe(
            year * 12 + month >= nowYear * 12 + nowMonth + 1,
          )
        },
      ),
    )
  })

  it('reads the clock at each validation', () => {
    let today = new Date(2026, 0, 1)
    const schema = createCardSchema({ now: () => today })
    const expiring = { ...card, exp_month: '3', exp_year: '2026' }
    expect(v.is(schema, expiring)).toBe(true)
    today = new Date(2026, 3, 1)
    expect(v.is(schema, expiring)).toBe(false)
  })

  it('drops spaces between digit groups', () => {
    expect(v.parse(CardNumberSchema, '4242 4242 4242 4242')).toBe('4242424242424242')
  })
})

describe('BillingInformationSchema (step 3)', () => {
  it('accepts the fixture against the real clock', () => {
    expect(errorsOf(BillingInformationSchema, valid)).toEqual({})
  })

  it('reports every empty field and both agreements', () => {
    expect(
      errorsOf(billingSchema, {
        ...valid,
        billing_address_1: '',
        billing_city: '',
        billing_state: '',
        billing_zip: '',
        terms: false,
        business_agreement: false,
      }),
    ).toEqual({
      billing_address_1: 'Please fill billing address field',
      billing_city: 'Please fill billing city field',
      billing_state: 'Please fill billing state field',
      billing_zip: 'Please fill billing zip field',
      terms: 'Please accept the Terms and Conditions',
      business_agreement: 'Please accept the Business Associates Agreement',
    })
  })

  it.each([
    ['billing_address_1', 'A1', 'Billing address should contain minimum 3 characters'],
    ['billing_city', 'LA', 'Billing city should contain minimum 3 characters'],
    ['billing_zip', '1234', 'Billing zip should contain 5 to 9 characters'],
    ['billing_zip', '1234567890', 'Billing zip should contain 5 to 9 characters'],
    ['promo_code', 'SAVE5', 'Promo code should contain minimum 6 characters'],
  ])('%s %j → %s', (field, value, message) => {
    expect(errorsOf(billingSchema, { ...valid, [field]: value })).toEqual({ [field]: message })
  })

  it('billing zip takes 5 to 9 characters (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Z]{1,12}$/), (zip) => {
        const ok = zip.length >= 5 && zip.length <= 9
        expect(v.is(billingSchema, { ...valid, billing_zip: zip })).toBe(ok)
      }),
    )
  })

  it('promo code is optional, at least 6 characters when given', () => {
    expect(v.parse(PromoCodeSchema, undefined)).toBe('')
    expect(v.is(PromoCodeSchema, 'WELCOME10')).toBe(true)
    expect(v.is(PromoCodeSchema, '12345')).toBe(false)
  })

  it('the agreement signature needs a signature, a name and a date', () => {
    expect(
      errorsOf(AgreementSignatureSchema, { signature: '', signer_name: '', date: '2026-06-15' }),
    ).toEqual({
      signature: 'Please fill signature field',
      signer_name: 'Please fill signer name field',
    })
    expect(
      v.is(AgreementSignatureSchema, {
        signature: 'J. Doe',
        signer_name: 'Jane Doe',
        date: '2026-06-15',
      }),
    ).toBe(true)
  })
})
