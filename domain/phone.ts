import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/min'

/**
 * Phone numbers in one form. Every phone the product stores is E.164 ("+14085554743"):
 * it is compared in that form, so "(408) 555-4743" and "+1 408 555 4743" are one patient, and it
 * is shown formatted for its country ("(408) 555-4743" for the US and Canada, the international
 * form for anywhere else). The product sells to the US and Canada: a number written without a
 * country code is read as one of theirs (both are +1, the North American Numbering Plan).
 */

/** The countries a number without a country code is read in. */
export type PhoneCountry = 'US' | 'CA'

/** A phone's characters as people write them: digits, spaces, + ( ) . - and /. */
const PHONE_WRITING = /^[\d\s().+\-/]+$/

/**
 * The E.164 form of a phone number written any common way, or `null` when the text is not a
 * possible number (too few or too many digits for its country, letters in it). Only the length is
 * checked, not whether the number is assigned: 555 numbers, the ones films and tests use, pass.
 */
export function toE164(text: string, country: PhoneCountry = 'US'): string | null {
  const written = text.trim()
  if (!written || !PHONE_WRITING.test(written)) return null
  const parsed = parsePhoneNumberFromString(written, country as CountryCode)
  if (!parsed?.isPossible()) return null
  return parsed.number
}

/**
 * A stored phone as people read it: "(408) 555-4743" for a North American number,
 * "+44 20 7946 0958" for any other. Text that is not a number (a row stored before migration 0025 that
 * the migration could not read) is shown as it is.
 */
export function formatPhone(stored: string | null | undefined): string {
  if (!stored) return ''
  const parsed = parsePhoneNumberFromString(stored, 'US')
  if (!parsed?.isPossible()) return stored
  return parsed.countryCallingCode === '1' ? parsed.formatNational() : parsed.formatInternational()
}
