import Papa from 'papaparse'
import { describe, expect, it } from 'vitest'
import { csvCell, csvRow } from '#domain/csv.ts'

describe('CSV cells', () => {
  it('quotes commas, quotes, line breaks and outer spaces, doubling quotes', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(' padded ')).toBe('" padded "')
  })

  it('turns cells a spreadsheet would run as formulas into text, but not negative numbers', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"')
    expect(csvCell('+1 555 0100')).toBe("'+1 555 0100")
    expect(csvCell('-2+3')).toBe("'-2+3")
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('\tcmd')).toBe("'\tcmd")
    expect(csvCell(-100)).toBe('-100')
  })

  it('writes empty cells for null, ISO times for dates, and rows that a CSV parser reads back', () => {
    const row = csvRow([1, null, 'Lopez, Jamie', new Date('2026-01-02T03:04:05Z'), true, 'a"b'])
    expect(row.endsWith('\r\n')).toBe(true)
    const parsed = Papa.parse<string[]>(row.trimEnd(), { header: false })
    expect(parsed.data[0]).toEqual([
      '1',
      '',
      'Lopez, Jamie',
      '2026-01-02T03:04:05.000Z',
      'true',
      'a"b',
    ])
  })
})
