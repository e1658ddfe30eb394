import { describe, expect, it } from 'vitest'
import { searchPatterns } from '#domain/patient-search.ts'

describe('searchPatterns', () => {
  it('asks for the start of a word for every typed word, lower-cased, in the order typed', () => {
    expect(searchPatterns('  Juli   And ')).toEqual([['% juli%'], ['% and%']])
    expect(searchPatterns('')).toEqual([])
    expect(searchPatterns('   ')).toEqual([])
  })

  it('takes LIKE wildcards literally', () => {
    expect(searchPatterns('50% a_b\\')).toEqual([['% 50\\%%'], ['% a\\_b\\\\%']])
  })

  it('reads a run of words written as a phone number as its digits, with and without the 1', () => {
    expect(searchPatterns('(408) 555 47')).toEqual([['% 40855547%']])
    expect(searchPatterns('+1 408-555')).toEqual([['% 1408555%', '% 408555%']])
    expect(searchPatterns('Anderson 408-555')).toEqual([
      ['% anderson%'],
      ['% 408555%', '% 408-555%'],
    ])
  })

  it('keeps letters with digits and short numbers as words of text', () => {
    expect(searchPatterns('Lopez2024')).toEqual([['% lopez2024%']])
    expect(searchPatterns('Ann 12')).toEqual([['% ann%'], ['% 12%']])
  })
})
