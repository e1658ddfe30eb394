import Papa from 'papaparse'
import { describe, expect, it } from 'vitest'
import { csvCell, csvCellAsTyped, csvRow, isFormulaLike } from '#domain/csv.ts'

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

describe('cells written as typed', () => {
  it('keeps phones and numbers as typed and guards only what could run as a formula', () => {
    expect(csvCellAsTyped('+1 510 555 0100')).toBe('+1 510 555 0100')
    expect(csvCellAsTyped('+1 (510) 555-0100')).toBe('+1 (510) 555-0100')
    expect(csvCellAsTyped('-50')).toBe('-50')
    expect(csvCellAsTyped('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"')
    expect(csvCellAsTyped('+SUM(A1)')).toBe("'+SUM(A1)")
    expect(csvCellAsTyped('-2+3')).toBe("'-2+3")
    expect(csvCellAsTyped('@cmd')).toBe("'@cmd")
    expect(csvCellAsTyped('+A1')).toBe("'+A1")
    expect(isFormulaLike('+1 510 555 0100')).toBe(false)
    expect(isFormulaLike('=1')).toBe(true)
  })
})
