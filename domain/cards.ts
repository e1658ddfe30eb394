import cardValidator from 'card-validator'
import creditCardType from 'credit-card-type'

/**
 * Payment card rules: which of the fifteen known card types a number is,
 * its valid lengths, the CVV length, and the Luhn check that every type but UnionPay must pass.
 * Detection, lengths and Luhn come from `card-validator` and its `credit-card-type` table, which we
 * align with the spec below (`card-validator` reads the same shared table).
 */

/** The card types the product knows, with the spec's names. */
export const CARD_TYPES = [
  'amex',
  'dankort',
  'dinersclub',
  'discover',
  'elo',
  'hipercard',
  'jcb',
  'laser',
  'maestro',
  'mastercard',
  'mir',
  'troy',
  'unionpay',
  'visaelectron',
  'visa',
] as const
export type CardType = (typeof CARD_TYPES)[number]

type LibraryCardType = ReturnType<typeof creditCardType.getTypeInfo>

// The library names two brands differently; every other spec name is the library's own.
const FROM_LIBRARY: Readonly<Record<string, CardType>> = {
  'american-express': 'amex',
  'diners-club': 'dinersclub',
}

// Types the library lacks. Each prefix is more specific than the visa (4) or maestro (50, 63, 67)
// pattern it sits in, so the library's best-match rule (longest matching pattern) picks them.
const ADDED_TYPES: readonly LibraryCardType[] = [
  {
    niceType: 'Dankort',
    type: 'dankort',
    // Eight digits, so it outranks maestro's six-digit 500000-504174 range it sits in.
    patterns: [[50190000, 50199999]],
    gaps: [4, 8, 12],
    lengths: [16],
    code: { name: 'CVV', size: 3 },
  },
  {
    niceType: 'Laser',
    type: 'laser',
    patterns: [6304, 6706, 6709, 6771],
    gaps: [4, 8, 12],
    lengths: [16, 17, 18, 19],
    code: { name: 'CVV', size: 3 },
  },
  {
    niceType: 'Visa Electron',
    type: 'visaelectron',
    patterns: [4026, 417500, 4405, 4508, 4844, 4913, 4917],
    gaps: [4, 8, 12],
    lengths: [16],
    code: { name: 'CVV', size: 3 },
  },
]

// Library types the spec does not list; without them their numbers fall to the spec's types.
const REMOVED_TYPES = ['hiper', 'naranja', 'verve'] as const

/**
 * Aligns the library's shared table with the spec (idempotent): adds dankort, laser and
 * visaelectron, removes the types the spec does not know, and gives visa the spec's lengths
 * (13, 16, 19). `card-validator` reads the same table, so its validity answers follow.
 */
function alignCardTable(): void {
  for (const config of ADDED_TYPES) creditCardType.addCard(config)
  for (const name of REMOVED_TYPES) {
    try {
      creditCardType.removeCard(name)
    } catch {
      // Already removed by an earlier copy of this module (a hot reload): nothing to do.
    }
  }
  creditCardType.updateCard('visa', { lengths: [13, 16, 19] })
}
alignCardTable()

/** Removes the spaces and hyphens people type or a mask inserts between digit groups. */
export function normalizeCardNumber(number: string): string {
  return number.replace(/[\s-]/g, '')
}

function toCardType(libraryType: string): CardType | null {
  const name = FROM_LIBRARY[libraryType] ?? libraryType
  return (CARD_TYPES as readonly string[]).includes(name) ? (name as CardType) : null
}

/**
 * The card types a (partial) number may still turn out to be, most likely first. An empty
 * number may be any type.
 */
export function possibleCardTypes(number: string): CardType[] {
  const digits = normalizeCardNumber(number)
  if (!/^\d*$/.test(digits)) return []
  return creditCardType(digits)
    .map((info) => toCardType(info.type))
    .filter((type): type is CardType => type !== null)
}

/** The card type of a number once its prefix decides it, else null. */
export function detectCardType(number: string): CardType | null {
  const digits = normalizeCardNumber(number)
  if (digits === '') return null
  const types = possibleCardTypes(digits)
  return types.length === 1 ? (types[0] ?? null) : null
}

function libraryName(type: CardType): string {
  if (type === 'amex') return 'american-express'
  if (type === 'dinersclub') return 'diners-club'
  return type
}

/** The valid lengths of a card type's numbers (15 amex, 13/16/19 visa, 16 most others). */
export function cardLengths(type: CardType): readonly number[] {
  return creditCardType.getTypeInfo(libraryName(type)).lengths
}

/** The display name of a card type ("American Express", "Visa Electron", …). */
export function cardTypeName(type: CardType): string {
  return creditCardType.getTypeInfo(libraryName(type)).niceType
}

/** The valid CVV lengths: 4 for amex, 3 for every other type, 3 or 4 when the type is unknown. */
export function cvvLengths(type: CardType | null): readonly number[] {
  if (type === null) return [3, 4]
  return type === 'amex' ? [4] : [3]
}

/** Why a card number fails, in the order the checks run; null when it passes. */
export type CardNumberProblem = 'empty' | 'digits' | 'type' | 'length' | 'luhn'

/** The verdict on a card number: its type (when known) and the first problem found. */
export type CardNumberCheck = { type: CardType | null; problem: CardNumberProblem | null }

/**
 * Checks a card number: digits only, a known type, a valid length for that type, and the Luhn
 * check except for UnionPay. Spaces and hyphens between groups are ignored.
 */
export function checkCardNumber(number: string): CardNumberCheck {
  const digits = normalizeCardNumber(number)
  if (digits === '') return { type: null, problem: 'empty' }
  if (!/^\d+$/.test(digits)) return { type: null, problem: 'digits' }
  const type = detectCardType(digits)
  if (type === null) return { type: null, problem: 'type' }
  if (!cardLengths(type).includes(digits.length)) return { type, problem: 'length' }
  // card-validator applies the Luhn check and skips it for UnionPay.
  if (!cardValidator.number(digits).isValid) return { type, problem: 'luhn' }
  return { type, problem: null }
}

/** Whether a card number passes every rule of {@link checkCardNumber}. */
export function isValidCardNumber(number: string): boolean {
  return checkCardNumber(number).problem === null
}

/**
 * How many digits the card-number mask allows for what has been typed so far: 19 while the number
 * may be a visa, else 16.
 */
export function cardNumberMaskLength(number: string): number {
  return possibleCardTypes(number).includes('visa') ? 19 : 16
}

/**
 * Where a card number's groups break, as the card shows them: 4-6-5 for Amex (breaks after the
 * 4th and 10th digit), 4-6-4 for Diners, 4-4-4-4 for most and for a type not known yet.
 */
export function cardNumberGaps(number: string): readonly number[] {
  const type = detectCardType(number)
  const gaps = type ? creditCardType.getTypeInfo(libraryName(type)).gaps : undefined
  return gaps && gaps.length > 0 ? gaps : [4, 8, 12, 16]
}

/** How many digits the CVV mask allows. */
export const CVV_MASK_LENGTH = 4

/** The last four digits of a card number, the only part the review step shows. */
export function cardLastFour(number: string): string {
  return normalizeCardNumber(number).slice(-4)
}

/** A card number masked for display: `•••• 4242`. */
export function maskCardNumber(number: string): string {
  return `•••• ${cardLastFour(number)}`
}

/**
 * Error codes of the card library the spec names (section 5): a bad number or CVC, and a bad
 * expiry. Kept for a provider adapter that reports them; the forms use the messages instead.
 */
export const CARD_ERROR_CODES = {
  cardInvalid: 'CREDIT_CARD_INVALID',
  expiryInvalid: 'CREDIT_EXPIRY_INVALID',
} as const
