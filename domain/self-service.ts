import * as v from 'valibot'
import { AUTH_MESSAGES, PASSWORD_MAX_LENGTH } from '#domain/auth.ts'
import {
  confirmationMatches,
  FirstNameSchema,
  LastNameSchema,
  PasswordSchema,
  PhoneCountryCodeSchema,
  TitleSchema,
  WizardPhoneSchema,
} from '#domain/fields.ts'
import { ROLES } from '#domain/permissions.ts'

/**
 * Self-service: a member changes their own password; an Admin changes a colleague's
 * role, deactivates and reactivates them. A practice always keeps one active Admin, so that
 * nobody is locked out of the practice. The server re-validates every body with these schemas.
 */

/** What the API and the screens say (ours: not in the spec). */
export const SELF_SERVICE_MESSAGES = {
  currentPasswordRequired: 'Please fill in your current password',
  currentPasswordWrong: 'The current password is not correct.',
  samePassword: 'The new password must differ from the current one.',
  passwordChanged: 'Password changed. You were signed out on every other device.',
  lastAdmin: 'The practice must keep at least one active Admin: make another member Admin first.',
  ownAccount: 'You cannot deactivate your own account.',
  deactivated: 'This account was deactivated. Ask an admin of your practice to reactivate it.',
  roleRequired: 'Choose a role: Admin, Manager or Staff.',
  ownProfileOnly: 'You can change only your own profile.',
  profileSaved: 'Profile saved.',
  phoneSaved: 'Phone number changed. It was verified by SMS code.',
  phoneUnchanged: 'This is already your phone number.',
  phoneNotVerified: 'Please verify the new phone number with the SMS code before saving it.',
  roleChanged: (name: string, role: string) => `${name} is now ${role}.`,
  /** The question before a role change: "Make Jane Doe a Manager?". */
  roleQuestion: (name: string, role: string) => `Make ${name} ${roleWithArticle(role)}?`,
  /** What the change means, said in the confirmation. */
  roleConsequence: (name: string, from: string, role: keyof typeof ROLE_ABILITIES) =>
    `${name} is ${roleWithArticle(from)} now. ${ROLE_ABILITIES[role]} The change applies from their next request, and it is kept in the activity log.`,
  deactivatedMember: (name: string) => `${name} was deactivated and signed out on every device.`,
  reactivatedMember: (name: string) => `${name} can sign in again.`,
} as const

/** A role with its article, as a sentence says it: "an Admin", "a Manager", "a Staff member". */
export function roleWithArticle(role: string): string {
  if (role === 'Admin') return 'an Admin'
  if (role === 'Staff') return 'a Staff member'
  return `a ${role}`
}

/** What each role may do, in the words of the permission matrix. */
export const ROLE_ABILITIES = {
  Admin:
    'An Admin can do everything a Manager can, and also change the programme rules, the practice settings and the subscription, manage personnel and their roles, and read the activity log.',
  Manager:
    "A Manager can adjust points, redeem without the patient's code, run promotions, edit the catalogue and see the money figures and reports, but cannot change settings or personnel.",
  Staff:
    "A Staff member records visits, redeems with the patient's code and edits patients' contact details, and sees no money figures, reports, settings or personnel management.",
} as const

/** `PUT /users/{id}/role` body. */
export const RoleChangePayloadSchema = v.object({
  access_rights: v.picklist(ROLES, SELF_SERVICE_MESSAGES.roleRequired),
})
export type RoleChangePayload = v.InferOutput<typeof RoleChangePayloadSchema>

/**
 * A changed password: the spec's strong rule of sign-up and registration (at least 8 characters,
 * a digit, an uppercase and a lowercase letter, no whitespace; not a common password), with the
 * same sentences, and at most 256 characters like every password the server hashes.
 */
export const ChangedPasswordSchema = v.pipe(
  PasswordSchema,
  v.maxLength(
    PASSWORD_MAX_LENGTH,
    `Password should contain at most ${PASSWORD_MAX_LENGTH} characters`,
  ),
)

/** `POST /auth/change-password` body: the current password and the new one twice. */
export const ChangePasswordPayloadSchema = v.pipe(
  v.object({
    current_password: v.pipe(
      v.string(),
      v.nonEmpty(SELF_SERVICE_MESSAGES.currentPasswordRequired),
      v.maxLength(PASSWORD_MAX_LENGTH, SELF_SERVICE_MESSAGES.currentPasswordWrong),
    ),
    password: ChangedPasswordSchema,
    passwordConfirmation: v.pipe(v.string(), v.nonEmpty(AUTH_MESSAGES.confirmPasswordRequired)),
    /** Whether this browser's session was made with Remember me: the fresh one lasts as long. */
    remember: v.optional(v.boolean()),
  }),
  confirmationMatches('passwordConfirmation', AUTH_MESSAGES.passwordsDoNotMatch),
  v.forward(
    v.partialCheck(
      [['current_password'], ['password']],
      (input) => input.current_password !== input.password,
      SELF_SERVICE_MESSAGES.samePassword,
    ),
    ['password'],
  ),
)
export type ChangePasswordPayload = v.InferOutput<typeof ChangePasswordPayloadSchema>

/** `PUT /users/{own id}` body: the title and names, with the sign-up's name rules. */
export const ProfileUpdatePayloadSchema = v.object({
  title: TitleSchema,
  first_name: FirstNameSchema,
  last_name: LastNameSchema,
})
export type ProfileUpdatePayload = v.InferOutput<typeof ProfileUpdatePayloadSchema>

/** `POST /users/{own id}/phone/code` body: the new phone the SMS code goes to. */
export const PhoneCodePayloadSchema = v.object({
  phone: WizardPhoneSchema,
  countryCode: PhoneCountryCodeSchema,
})
export type PhoneCodePayload = v.InferOutput<typeof PhoneCodePayloadSchema>

/**
 * `PUT /users/{own id}/phone` body: the new phone and the verification that proved it (the
 * sign-up's phone verification, `authyId`); the server refuses a phone without one.
 */
export const PhoneChangePayloadSchema = v.object({
  cell_phone: WizardPhoneSchema,
  country_code: PhoneCountryCodeSchema,
  authyId: v.pipe(
    v.string(SELF_SERVICE_MESSAGES.phoneNotVerified),
    v.nonEmpty(SELF_SERVICE_MESSAGES.phoneNotVerified),
    v.maxLength(200, SELF_SERVICE_MESSAGES.phoneNotVerified),
  ),
})
export type PhoneChangePayload = v.InferOutput<typeof PhoneChangePayloadSchema>
