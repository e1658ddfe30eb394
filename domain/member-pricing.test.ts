import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyMembership, type MemberPerks, multipliedPoints } from './member-pricing.ts'
import { applyOffer } from './offer-value.ts'

const perks = (over: Partial<MemberPerks> = {}): MemberPerks => ({
  discount_percent: 15,
  discount_item_ids: [],
  points_multiplier: 2,
  allowances: new Map([[1, 1]]),
  ...over,
})

describe('a member’s perks on the lines', () => {
  it('uses the allowance first, then takes the member price off what is still charged', () => {
    const result = applyMembership(
      [
        { kind: 'procedure', item_id: 1, unit_price_cents: 19900, quantity: 2, points: 200 },
        { kind: 'product', item_id: 9, unit_price_cents: 4000, quantity: 1, points: 40 },
      ],
      perks(),
    )
    expect(result.lines).toEqual([
      // One unit included (free, no points); the second at 15% off, earning on what is paid.
      {
        allowance_units: 1,
        allowance_cents: 19900,
        member_discount_cents: 2985,
        net_cents: 16915,
        points: 85,
      },
      {
        allowance_units: 0,
        allowance_cents: 0,
        member_discount_cents: 600,
        net_cents: 3400,
        points: 34,
      },
    ])
    expect(result.allowances_used).toEqual(new Map([[1, 1]]))
    expect(result.allowance_cents).toBe(19900)
    expect(result.member_discount_cents).toBe(3585)
  })

  it('gives a second line of the same procedure what the first left, and the member price only to the named items', () => {
    const result = applyMembership(
      [
        { kind: 'procedure', item_id: 1, unit_price_cents: 10000, quantity: 1, points: 0 },
        { kind: 'procedure', item_id: 1, unit_price_cents: 10000, quantity: 1, points: 0 },
        { kind: 'product', item_id: 2, unit_price_cents: 10000, quantity: 1, points: 0 },
      ],
      perks({ discount_item_ids: [1] }),
    )
    expect(result.lines.map((l) => [l.allowance_units, l.member_discount_cents])).toEqual([
      [1, 0],
      [0, 1500],
      // A product is not a procedure the plan names.
      [0, 0],
    ])
  })

  it('multiplies points with two decimals exactly and rounds down', () => {
    expect(multipliedPoints(85, 2)).toBe(170)
    expect(multipliedPoints(33, 1.5)).toBe(49)
    expect(multipliedPoints(10, 1)).toBe(10)
    expect(multipliedPoints(0, 3)).toBe(0)
  })

  it('never makes money or points out of nothing, with the offer after it (property)', () => {
    const line = fc.record({
      kind: fc.constantFrom('procedure' as const, 'product' as const),
      item_id: fc.integer({ min: 1, max: 4 }),
      unit_price_cents: fc.integer({ min: 0, max: 1_000_000 }),
      quantity: fc.integer({ min: 1, max: 5 }),
      points: fc.integer({ min: 0, max: 5000 }),
    })
    const planPerks = fc.record({
      discount_percent: fc.integer({ min: 0, max: 100 }),
      discount_item_ids: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
      points_multiplier: fc.constantFrom(1, 1.25, 1.5, 2, 3),
      allowances: fc
        .array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 })), {
          maxLength: 4,
        })
        .map((pairs) => new Map(pairs)),
    })
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 6 }),
        fc.option(planPerks, { nil: null }),
        fc.integer({ min: 0, max: 100 }),
        (lines, plan, offerPercent) => {
          const result = applyMembership(lines, plan)
          const used = new Map<number, number>()
          for (const [i, l] of lines.entries()) {
            const r = result.lines[i]
            if (!r) throw new Error('a line is missing')
            const gross = l.unit_price_cents * l.quantity
            // Every cent of the line is either included, taken off at the member price, or due.
            expect(r.allowance_cents + r.member_discount_cents + r.net_cents).toBe(gross)
            expect(r.net_cents).toBeGreaterThanOrEqual(0)
            expect(r.points).toBeGreaterThanOrEqual(0)
            expect(r.points).toBeLessThanOrEqual(l.points)
            if (r.allowance_units > 0)
              used.set(l.item_id, (used.get(l.item_id) ?? 0) + r.allowance_units)
          }
          // No allowance is used beyond what is left of it.
          for (const [item, units] of used) {
            expect(units).toBeLessThanOrEqual(plan?.allowances.get(item) ?? 0)
          }
          expect(result.allowances_used).toEqual(used)
          // The offer comes off what the membership left: never below zero.
          const offer = applyOffer(
            lines.map((l, i) => ({ ...l, net_cents: result.lines[i]?.net_cents ?? 0 })),
            { discount_cents: null, discount_percent: offerPercent || null, procedure_ids: [] },
          )
          const net = result.lines.reduce((sum, r) => sum + r.net_cents, 0)
          expect(offer.total_cents).toBe(net - offer.discount_cents)
          expect(offer.total_cents).toBeGreaterThanOrEqual(0)
        },
      ),
      { numRuns: 300 },
    )
  })
})
