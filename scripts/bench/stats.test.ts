import { describe, expect, it } from 'vitest'
import { count, kb, median, ms, percentile } from './stats.ts'

describe('bench statistics', () => {
  it('takes percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i)
    expect(percentile(values, 99)).toBe(99)
    expect(percentile(values, 100)).toBe(100)
    expect(percentile(values, 0)).toBe(1)
    expect(median([3, 1, 2])).toBe(2)
    expect(percentile([], 50)).toBeNaN()
  })

  it('formats sizes, durations and counts', () => {
    expect(kb(120_400)).toBe('120.4 KB')
    expect(ms(18.26)).toBe('18.3 ms')
    expect(ms(1234.4)).toBe('1234 ms')
    expect(ms(Number.NaN)).toBe('n/a')
    expect(count(35123.6)).toBe('35,124')
  })
})
