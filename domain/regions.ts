/**
 * Places and calendar choices the forms offer: the two countries, the 50 states
 * plus the District of Columbia, Canada's 13 provinces and territories, and the card expiry
 * months and years.
 */

/** A state, province or territory: its postal abbreviation and its name. */
export type Region = { readonly code: string; readonly name: string }

/** The countries a practice can be in. */
export const COUNTRY_CODES = ['US', 'CA'] as const
export type CountryCode = (typeof COUNTRY_CODES)[number]

/** The country every form starts with. */
export const DEFAULT_COUNTRY: CountryCode = 'US'

/** The country choices with their names, United States first. */
export const COUNTRIES: readonly { readonly code: CountryCode; readonly name: string }[] = [
  { code: 'US', name: 'United States' },
  { code: 'CA', name: 'Canada' },
]

/** The 50 states and the District of Columbia, by postal abbreviation. */
export const US_STATES: readonly Region[] = [
  { code: 'AL', name: 'Alabama' },
  { code: 'AK', name: 'Alaska' },
  { code: 'AZ', name: 'Arizona' },
  { code: 'AR', name: 'Arkansas' },
  { code: 'CA', name: 'California' },
  { code: 'CO', name: 'Colorado' },
  { code: 'CT', name: 'Connecticut' },
  { code: 'DE', name: 'Delaware' },
  { code: 'DC', name: 'District of Columbia' },
  { code: 'FL', name: 'Florida' },
  { code: 'GA', name: 'Georgia' },
  { code: 'HI', name: 'Hawaii' },
  { code: 'ID', name: 'Idaho' },
  { code: 'IL', name: 'Illinois' },
  { code: 'IN', name: 'Indiana' },
  { code: 'IA', name: 'Iowa' },
  { code: 'KS', name: 'Kansas' },
  { code: 'KY', name: 'Kentucky' },
  { code: 'LA', name: 'Louisiana' },
  { code: 'ME', name: 'Maine' },
  { code: 'MD', name: 'Maryland' },
  { code: 'MA', name: 'Massachusetts' },
  { code: 'MI', name: 'Michigan' },
  { code: 'MN', name: 'Minnesota' },
  { code: 'MS', name: 'Mississippi' },
  { code: 'MO', name: 'Missouri' },
  { code: 'MT', name: 'Montana' },
  { code: 'NE', name: 'Nebraska' },
  { code: 'NV', name: 'Nevada' },
  { code: 'NH', name: 'New Hampshire' },
  { code: 'NJ', name: 'New Jersey' },
  { code: 'NM', name: 'New Mexico' },
  { code: 'NY', name: 'New York' },
  { code: 'NC', name: 'North Carolina' },
  { code: 'ND', name: 'North Dakota' },
  { code: 'OH', name: 'Ohio' },
  { code: 'OK', name: 'Oklahoma' },
  { code: 'OR', name: 'Oregon' },
  { code: 'PA', name: 'Pennsylvania' },
  { code: 'RI', name: 'Rhode Island' },
  { code: 'SC', name: 'South Carolina' },
  { code: 'SD', name: 'South Dakota' },
  { code: 'TN', name: 'Tennessee' },
  { code: 'TX', name: 'Texas' },
  { code: 'UT', name: 'Utah' },
  { code: 'VT', name: 'Vermont' },
  { code: 'VA', name: 'Virginia' },
  { code: 'WA', name: 'Washington' },
  { code: 'WV', name: 'West Virginia' },
  { code: 'WI', name: 'Wisconsin' },
  { code: 'WY', name: 'Wyoming' },
]

/** Canada's 10 provinces and 3 territories, by postal abbreviation. */
export const CANADIAN_PROVINCES: readonly Region[] = [
  { code: 'AB', name: 'Alberta' },
  { code: 'BC', name: 'British Columbia' },
  { code: 'MB', name: 'Manitoba' },
  { code: 'NB', name: 'New Brunswick' },
  { code: 'NL', name: 'Newfoundland and Labrador' },
  { code: 'NT', name: 'Northwest Territories' },
  { code: 'NS', name: 'Nova Scotia' },
  { code: 'NU', name: 'Nunavut' },
  { code: 'ON', name: 'Ontario' },
  { code: 'PE', name: 'Prince Edward Island' },
  { code: 'QC', name: 'Quebec' },
  { code: 'SK', name: 'Saskatchewan' },
  { code: 'YT', name: 'Yukon' },
]

/** The state list for a country: Canada's provinces and territories, else the US states + DC. */
export function regionsFor(country: CountryCode): readonly Region[] {
  return country === 'CA' ? CANADIAN_PROVINCES : US_STATES
}

/** Whether `code` is a state (or province) of `country`. */
export function isRegionOf(country: CountryCode, code: string): boolean {
  return regionsFor(country).some((region) => region.code === code)
}

/** The first card expiry year the forms offer. */
export const EXPIRY_YEAR_MIN = 2020
/** The last card expiry year the forms offer. */
export const EXPIRY_YEAR_MAX = 2032

/** Card expiry years offered: 2020 to 2032. */
export const EXPIRY_YEARS: readonly number[] = Array.from(
  { length: EXPIRY_YEAR_MAX - EXPIRY_YEAR_MIN + 1 },
  (_, index) => EXPIRY_YEAR_MIN + index,
)

/** Card expiry months offered: 1 to 12. */
export const EXPIRY_MONTHS: readonly number[] = Array.from({ length: 12 }, (_, index) => index + 1)
