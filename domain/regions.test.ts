import { describe, expect, it } from 'vitest'
import {
  CANADIAN_PROVINCES,
  COUNTRIES,
  DEFAULT_COUNTRY,
  EXPIRY_MONTHS,
  EXPIRY_YEARS,
  isRegionOf,
  regionsFor,
  US_STATES,
} from '#domain/regions.ts'

describe('regions', () => {
  it('lists the 50 states plus DC, each code once', () => {
    expect(US_STATES).toHaveLength(51)
    expect(new Set(US_STATES.map((state) => state.code)).size).toBe(51)
    expect(US_STATES).toContainEqual({ code: 'DC', name: 'District of Columbia' })
    expect(US_STATES.every((state) => /^[A-Z]{2}$/.test(state.code))).toBe(true)
  })

  it('lists the 13 Canadian provinces and territories', () => {
    expect(CANADIAN_PROVINCES).toHaveLength(13)
    expect(CANADIAN_PROVINCES.map((province) => province.code).sort()).toEqual(
      ['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT'].sort(),
    )
  })

  it('defaults to the US; Canada switches the list', () => {
    expect(DEFAULT_COUNTRY).toBe('US')
    expect(COUNTRIES.map((country) => country.code)).toEqual(['US', 'CA'])
    expect(regionsFor('US')).toBe(US_STATES)
    expect(regionsFor('CA')).toBe(CANADIAN_PROVINCES)
    expect(isRegionOf('CA', 'ON')).toBe(true)
    expect(isRegionOf('US', 'ON')).toBe(false)
    expect(isRegionOf('US', 'NY')).toBe(true)
  })

  it('offers expiry years 2020 to 2032 and months 1 to 12', () => {
    expect(EXPIRY_YEARS[0]).toBe(2020)
    expect(EXPIRY_YEARS.at(-1)).toBe(2032)
    expect(EXPIRY_YEARS).toHaveLength(13)
    expect(EXPIRY_MONTHS).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
  })
})
