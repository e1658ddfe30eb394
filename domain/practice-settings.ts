import * as v from 'valibot'
import { EmailSchema, FREE_TEXT_MAX_LENGTH } from '#domain/fields.ts'
import { isHttpsUrl } from '#domain/footer-links.ts'
import {
  type NextechSettings,
  type PracticeDetailsInput,
  PracticeDetailsSchema,
} from '#domain/sign-up/practice-details.ts'

/**
 * The practice's details in Settings (`GET/PUT /practice`):
 * the sign-up wizard's step 2 with its rules and messages (domain/sign-up/practice-details.ts),
 * plus the footer links. The Nextech username and password are write-only: never answered, only
 * whether each is stored; an empty one on save keeps the stored value.
 */

/** What the Settings screens and the API say about the practice (ours: not in the spec). */
export const PRACTICE_SETTINGS_MESSAGES = {
  saved: 'Practice details saved.',
  footerUrl: 'Please enter a full https address, such as https://www.clinic.com/about',
  footerSupport:
    'Please enter an e-mail address (support@clinic.com) or a full https address (https://…)',
  credentialKept: 'Stored. Leave empty to keep it.',
} as const

/** The Nextech fields never answered: the API says only whether each is stored. */
export const WRITE_ONLY_NEXTECH = ['username', 'password'] as const
export type WriteOnlyNextechField = (typeof WRITE_ONLY_NEXTECH)[number]

/** Whether a text is an e-mail address, optionally written as a `mailto:` link. */
export function isSupportEmail(text: string): boolean {
  return v.is(EmailSchema, text.trim().replace(/^mailto:/i, ''))
}

const optionalLink = (rule: (text: string) => boolean, message: string) =>
  v.optional(
    v.pipe(
      v.string(message),
      v.trim(),
      v.maxLength(FREE_TEXT_MAX_LENGTH, message),
      v.check((text) => text === '' || rule(text), message),
    ),
    '',
  )

/**
 * The footer links a practice may set: about and privacy as https
 * addresses, support as an e-mail or an https address. Each is optional: empty means the
 * product's own view ({@link footerLinks}).
 */
export const FooterLinksSchema = v.object({
  about: optionalLink(isHttpsUrl, PRACTICE_SETTINGS_MESSAGES.footerUrl),
  privacy: optionalLink(isHttpsUrl, PRACTICE_SETTINGS_MESSAGES.footerUrl),
  support: optionalLink(
    (text) => isHttpsUrl(text) || isSupportEmail(text),
    PRACTICE_SETTINGS_MESSAGES.footerSupport,
  ),
})
export type FooterLinks = v.InferOutput<typeof FooterLinksSchema>

/** No footer link set: every link opens the product's own view. */
export const EMPTY_FOOTER_LINKS: FooterLinks = { about: '', privacy: '', support: '' }

/** `PUT /practice` once the stored credentials are filled in: the wizard's step 2 and the footer. */
export const PracticeSettingsSchema = v.intersect([
  PracticeDetailsSchema,
  v.object({ footer_links: v.optional(FooterLinksSchema, EMPTY_FOOTER_LINKS) }),
])
export type PracticeSettings = v.InferOutput<typeof PracticeSettingsSchema>
/** The form's values: step 2 as the form holds it, and the footer links. */
export type PracticeSettingsInput = PracticeDetailsInput & { footer_links: FooterLinks }

/** Which write-only credentials the practice has stored. */
export type StoredCredentials = Record<WriteOnlyNextechField, boolean>

/**
 * Fills the empty write-only credentials of a `PUT /practice` body with the stored ones (the
 * server passes the values, the form a stand-in for each stored one), so that an empty field
 * keeps what is stored and the wizard's "Please fill Password field" speaks only when nothing is.
 */
export function withStoredCredentials(
  body: unknown,
  stored: Partial<Record<WriteOnlyNextechField, string>>,
): unknown {
  if (typeof body !== 'object' || body === null) return body
  const nextech = (body as { nextech?: unknown }).nextech
  if (typeof nextech !== 'object' || nextech === null) return body
  const filled: Record<string, unknown> = { ...nextech }
  for (const field of WRITE_ONLY_NEXTECH) {
    const value = filled[field]
    const empty = value === undefined || value === null || value === ''
    if (empty && stored[field]) filled[field] = stored[field]
  }
  return { ...body, nextech: filled }
}

/** A stand-in for a stored credential when the browser checks a form (it never holds the value). */
const STORED = 'stored'

/**
 * The fields of {@link PracticeSettingsSchema} without its cross-field rules: what the body must
 * look like before the stored credentials are filled in.
 */
const PracticeSettingsShapeSchema = v.object({
  ...PracticeDetailsSchema.pipe[0].entries,
  footer_links: v.optional(FooterLinksSchema, EMPTY_FOOTER_LINKS),
})

/** The rules of {@link PracticeSettingsSchema}, with each stored credential counting as filled. */
export function practiceSettingsSchema(stored: StoredCredentials) {
  const standIns = Object.fromEntries(
    WRITE_ONLY_NEXTECH.filter((field) => stored[field]).map((field) => [field, STORED]),
  )
  return v.pipe(
    PracticeSettingsShapeSchema,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const checked = v.safeParse(
        PracticeSettingsSchema,
        withStoredCredentials(dataset.value, standIns),
      )
      if (checked.success) return checked.output
      for (const issue of checked.issues) {
        addIssue({
          message: issue.message,
          ...(issue.path ? { path: issue.path as [v.IssuePathItem, ...v.IssuePathItem[]] } : {}),
        })
      }
      return NEVER
    }),
  )
}

/**
 * The body `PUT /practice` accepts before the server fills in the stored credentials and applies
 * {@link PracticeSettingsSchema}'s cross-field rules (a zip of the country, the Nextech fields
 * required with Nextech): each field's own rules.
 */
export const PracticeSettingsPayloadSchema = PracticeSettingsShapeSchema

/** The Nextech settings as `GET /practice` answers them: the ids, and whether each secret is set. */
export const NextechAnswerSchema = v.object({
  client_id: v.string(),
  nx_practice_id: v.string(),
  username_set: v.boolean(),
  password_set: v.boolean(),
})
export type NextechAnswer = v.InferOutput<typeof NextechAnswerSchema>

/** `GET /practice` and `PUT /practice`: the practice as the Settings form shows it. */
export const PracticeAnswerSchema = v.object({
  id: v.number(),
  practice_name: v.string(),
  office_name: v.string(),
  url: v.string(),
  practice_phone: v.string(),
  practice_email: v.string(),
  practice_address: v.string(),
  practice_address_2: v.string(),
  city: v.string(),
  practice_zip: v.string(),
  state: v.string(),
  country: v.picklist(['US', 'CA']),
  e_record: v.picklist(['no_integration', 'nextech']),
  nextech: v.nullable(NextechAnswerSchema),
  footer_links: FooterLinksSchema,
  image_path: v.nullable(v.string()),
})
export type PracticeAnswer = v.InferOutput<typeof PracticeAnswerSchema>

/** The form's first values from the answer: the write-only credentials start empty. */
export function practiceFormValues(answer: PracticeAnswer): PracticeSettingsInput {
  const nextech: NextechSettings = {
    client_id: answer.nextech?.client_id ?? '',
    username: '',
    password: '',
    nx_practice_id: answer.nextech?.nx_practice_id ?? '',
  }
  return {
    practice_name: answer.practice_name,
    office_name: answer.office_name,
    url: answer.url,
    practice_phone: answer.practice_phone,
    practice_email: answer.practice_email,
    practice_address: answer.practice_address,
    practice_address_2: answer.practice_address_2,
    city: answer.city,
    practice_zip: answer.practice_zip,
    state: answer.state,
    country: answer.country,
    e_record: answer.e_record,
    nextech,
    footer_links: answer.footer_links,
  }
}
