import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  applyOffer,
  discountedPoints,
  type OfferLine,
  type OfferValue,
  offerValueWords,
  percentOf,
} from '#domain/offer-value.ts'

const line = (overrides: Partial<OfferLine> = {}): OfferLine => ({
  kind: 'procedure',
  item_id: 1,
  unit_price_cents: 19_900,
  quantity: 1,
  points: 199,
  ...overrides,
})

const offer = (overrides: Partial<OfferValue> = {}): OfferValue => ({
  discount_cents: null,
  discount_percent: null,
  procedure_ids: [],
  ...overrides,
})

const lineArb = fc.record({
  kind: fc.constantFrom('procedure' as const, 'product' as const),
  item_id: fc.integer({ min: 1, max: 5 }),
  unit_price_cents: fc.integer({ min: 0, max: 100_000_000 }),
  quantity: fc.integer({ min: 1, max: 1000 }),
  points: fc.integer({ min: 0, max: 10_000_000 }),
})
const offerArb = fc.oneof(
  fc.record({
    discount_cents: fc.integer({ min: 1, max: 100_000_000 }),
    discount_percent: fc.constant(null),
    procedure_ids: fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }),
  }),
  fc.record({
    discount_cents: fc.constant(null),
    discount_percent: fc.integer({ min: 1, max: 100 }),
    procedure_ids: fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }),
  }),
)

describe('an offer with value at checkout', () => {
  it('takes $50 off a $199 HydraFacial: $149 to pay, points on $149', () => {
    const result = applyOffer([line()], offer({ discount_cents: 5000, procedure_ids: [1] }))
    expect(result).toEqual({
      lines: [{ discount_cents: 5000, points: 149 }],
      discount_cents: 5000,
      subtotal_cents: 19_900,
      total_cents: 14_900,
      points: 149,
      matched: true,
    })
  })

  it('takes an amount once per visit, line after line, never below $0', () => {
    const result = applyOffer(
      [
        line({ unit_price_cents: 3000, points: 30 }),
        line({ kind: 'product', unit_price_cents: 9800, points: 98 }),
        line({ unit_price_cents: 19_900, points: 199 }),
      ],
      offer({ discount_cents: 5000 }),
    )
    expect(result.lines.map((l) => l.discount_cents)).toEqual([3000, 0, 2000])
    expect(result.lines.map((l) => l.points)).toEqual([0, 98, 179])
    expect(result.total_cents).toBe(3000 + 9800 + 19_900 - 5000)
  })

  it('takes a percentage off each matching line, rounded half up to the cent', () => {
    const result = applyOffer(
      [line({ unit_price_cents: 1999 }), line({ item_id: 2, unit_price_cents: 1001 })],
      offer({ discount_percent: 15, procedure_ids: [1, 2] }),
    )
    // 15% of 1999 = 299.85 → 300; 15% of 1001 = 150.15 → 150.
    expect(result.lines.map((l) => l.discount_cents)).toEqual([300, 150])
    expect(percentOf(1, 50)).toBe(1)
    expect(percentOf(3, 50)).toBe(2)
  })

  it('matches no line of another procedure or a product', () => {
    const result = applyOffer(
      [line({ item_id: 2 }), line({ kind: 'product', item_id: 1 })],
      offer({ discount_cents: 5000, procedure_ids: [1] }),
    )
    expect(result.matched).toBe(false)
    expect(result.discount_cents).toBe(0)
    expect(result.total_cents).toBe(result.subtotal_cents)
  })

  it('leaves the lines as they are without an offer', () => {
    const result = applyOffer([line(), line({ points: 0 })], null)
    expect(result.discount_cents).toBe(0)
    expect(result.points).toBe(199)
    expect(result.matched).toBe(false)
  })

  it('never makes a line negative; the total is the sum of the lines; all in whole cents', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 8 }), offerArb, (lines, value) => {
        const result = applyOffer(lines, value)
        let total = 0
        for (const [index, input] of lines.entries()) {
          const out = result.lines[index]
          if (!out) throw new Error('a line went missing')
          const gross = input.unit_price_cents * input.quantity
          expect(Number.isInteger(out.discount_cents)).toBe(true)
          expect(out.discount_cents).toBeGreaterThanOrEqual(0)
          expect(out.discount_cents).toBeLessThanOrEqual(gross)
          expect(out.points).toBeGreaterThanOrEqual(0)
          expect(out.points).toBeLessThanOrEqual(input.points)
          total += gross - out.discount_cents
        }
        expect(result.total_cents).toBe(total)
        expect(result.total_cents).toBeGreaterThanOrEqual(0)
        expect(result.subtotal_cents - result.discount_cents).toBe(result.total_cents)
        if (value.discount_cents !== null) {
          expect(result.discount_cents).toBeLessThanOrEqual(value.discount_cents)
        }
        // Deterministic: the same lines and offer give the same cents.
        expect(applyOffer(lines, value)).toEqual(result)
      }),
      { numRuns: 300 },
    )
  })

  it('scales points down in proportion to what is paid, rounded down', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 100_000_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (points, gross, share) => {
          const discount = Math.floor(gross * share)
          const scaled = discountedPoints(points, gross, discount)
          expect(scaled).toBeLessThanOrEqual(points)
          expect(scaled).toBeGreaterThanOrEqual(0)
          expect(Number.isInteger(scaled)).toBe(true)
        },
      ),
    )
  })

  it('says the value in words', () => {
    expect(offerValueWords(offer({ discount_cents: 5000 }), ['HydraFacial'])).toBe(
      '$50.00 off HydraFacial',
    )
    expect(offerValueWords(offer({ discount_percent: 20 }), [])).toBe('20% off any procedure')
    expect(offerValueWords(offer({ discount_percent: 20 }), ['A', 'B', 'C'])).toBe(
      '20% off A, B or C',
    )
    expect(offerValueWords(offer(), [])).toBeNull()
  })
})
