/**
 * How a patient search is read: every word typed must match the start of a word of
 * the patient's name, e-mail or phone, in any order ("Juli And" and "and juli" find Julia
 * Anderson; "ulia" does not). The server keeps each patient's words in `search_text`, each after a
 * space (migration 0027), so a word is one `LIKE '% word%'`, which the trigram index answers.
 *
 * A run of words written as a phone number (digits and phone punctuation: "(408) 555 47",
 * "+1 408-555") is one word: its digits, matched against the start of the phone's digits with and
 * without the country code 1. Letters with digits ("Lopez2024") stay a word of text.
 */

/** Words of 3 digits or more written as a phone number are read as its digits. */
const PHONE_WORD = /^[\d().+-]+$/
const MIN_PHONE_DIGITS = 3

/** A `LIKE` pattern matching the start of a word of `search_text`, wildcards taken literally. */
export function wordStartPattern(word: string): string {
  return `% ${word.replace(/[\\%_]/g, (m) => `\\${m}`)}%`
}

/**
 * The `LIKE` patterns of a search: one list per typed word, any of whose patterns may match; a
 * patient matches when every list has a match. Empty for an empty search.
 */
export function searchPatterns(search: string): string[][] {
  const tokens = search.toLowerCase().trim().split(/\s+/).filter(Boolean)
  const words: string[][] = []
  let phoneRun: string[] = []
  const endPhoneRun = () => {
    if (phoneRun.length === 0) return
    const digits = phoneRun.join('').replace(/\D/g, '')
    if (digits.length >= MIN_PHONE_DIGITS) {
      const alternatives = new Set([digits])
      // "+1 408 555" finds a number stored without its country code, and "408 555" one with it
      // (search_text holds the ten digits too).
      if (digits.startsWith('1') && digits.length > MIN_PHONE_DIGITS) {
        alternatives.add(digits.slice(1))
      }
      // A single word as typed is also a word of text ("2024-01" in an e-mail).
      if (phoneRun.length === 1) alternatives.add(phoneRun[0] as string)
      words.push([...alternatives].map(wordStartPattern))
    } else {
      for (const token of phoneRun) words.push([wordStartPattern(token)])
    }
    phoneRun = []
  }
  for (const token of tokens) {
    if (PHONE_WORD.test(token) && /\d/.test(token)) {
      phoneRun.push(token)
      continue
    }
    endPhoneRun()
    words.push([wordStartPattern(token)])
  }
  endPhoneRun()
  return words
}
