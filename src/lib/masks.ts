import { CVV_MASK_LENGTH, cardNumberGaps, cardNumberMaskLength } from '#domain/cards.ts'
import { PHONE_MASK_MAX_DIGITS } from '#domain/fields.ts'

// Input masks of the wizard. Each keeps only what the field can hold, so
// a pasted "4242-4242 4242 4242" or "(555) 123-4567" still becomes a valid entry.

/** Phone: an optional leading plus, then at most 15 digits. */
export function maskPhone(text: string): string {
  const plus = text.trimStart().startsWith('+') ? '+' : ''
  return plus + text.replace(/\D/g, '').slice(0, PHONE_MASK_MAX_DIGITS)
}

/** Digits only, at most `max` of them (practice phone, confirmation code, CVV). */
export function maskDigits(text: string, max: number): string {
  return text.replace(/\D/g, '').slice(0, max)
}

/** CVV: at most 4 digits. */
export function maskCvv(text: string): string {
  return maskDigits(text, CVV_MASK_LENGTH)
}

/**
 * Card number: digits in the groups of the card's type (4-6-5 for Amex, else fours), at most 16
 * digits (19 while the number may be a visa).
 */
export function maskCardNumber(text: string): string {
  const digits = text.replace(/\D/g, '')
  const kept = digits.slice(0, cardNumberMaskLength(digits))
  const breaks = new Set(cardNumberGaps(kept))
  // After 16 digits (a 19-digit visa) the groups go on in fours.
  let masked = ''
  for (let index = 0; index < kept.length; index += 1) {
    if (index > 0 && (breaks.has(index) || (index > 16 && index % 4 === 0))) masked += ' '
    masked += kept[index]
  }
  return masked
}
