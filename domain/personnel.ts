import * as v from 'valibot'
import {
  ConfirmCodeSchema,
  confirmationMatches,
  DEFAULT_PHONE_COUNTRY_CODE,
  EmailSchema,
  FIELD_MESSAGES,
  FirstNameSchema,
  LastNameSchema,
  PasswordConfirmSchema,
  PasswordSchema,
  PersonnelPhoneSchema,
  PhoneCountryCodeSchema,
  PositionSchema,
  TitleSchema,
} from '#domain/fields.ts'

/**
 * Personnel: invitations an Admin sends from the Personnel area, and the registration form an
 * invited person fills in. The field rules are
 * the shared ones of domain/fields.ts; the server re-validates every body with these schemas.
 */

/** How long an invitation link works after it was sent (or sent again). */
export const INVITATION_TTL_DAYS = 14

/** Longest invitation id a request may carry (ours are 43 characters of base64url). */
export const INVITATION_ID_MAX_LENGTH = 200

/** Longest password the server hashes (the same cap as sign-in). */
export const PERSONNEL_PASSWORD_MAX_LENGTH = 256

/** What the Personnel area and the registration say beyond the field rules (ours: not in the spec). */
export const PERSONNEL_MESSAGES = {
  invited: (email: string) => `Invitation sent to ${email}.`,
  resent: (email: string) => `Invitation sent again to ${email}.`,
  revoked: (email: string) => `Invitation to ${email} revoked.`,
  /** The answer for an unknown or revoked invitation (a used or expired one says so). */
  invitationNotFound: 'This invitation link is not valid any more.',
  emailHasAccount: 'A person with this e-mail already has an account.',
  alreadyInvited: 'This person already has a pending invitation. Send it again instead.',
  invitationUsed: 'This invitation was already used.',
  /** The registration link of an invitation someone already registered with. */
  invitationAlreadyUsed: 'This invitation has already been used',
  /** The registration link of an invitation past its days, and who can send a new one. */
  invitationExpired: (practiceName: string) =>
    `This invitation has expired. Ask an Admin of ${practiceName} to send you a new one.`,
  /** The registration page's line naming the practice. */
  joinPractice: (practiceName: string) => `Join ${practiceName} on Glow Rewards`,
  /** A registration whose phone was not verified (or was used for another account). */
  verifyPhoneFirst: 'Please verify your phone number first',
  /** Any failure that brings no message of its own (the spec's wording, section 8). */
  generic: 'Ooops, something going wrong please try again',
} as const

const InvitationIdSchema = v.pipe(
  v.string(),
  v.nonEmpty('The invitation id is missing.'),
  v.maxLength(INVITATION_ID_MAX_LENGTH, 'The invitation id is not valid.'),
)

const LimitedPasswordSchema = v.pipe(
  PasswordSchema,
  v.maxLength(
    PERSONNEL_PASSWORD_MAX_LENGTH,
    `Password should contain at most ${PERSONNEL_PASSWORD_MAX_LENGTH} characters`,
  ),
)

// Each schema below ends with the match rule: 'Passwords should match', on the confirm field.
const registrationDetailsEntries = {
  title: TitleSchema,
  firstName: FirstNameSchema,
  lastName: LastNameSchema,
  countryCode: PhoneCountryCodeSchema,
  phoneNumber: PersonnelPhoneSchema,
  password: LimitedPasswordSchema,
  password_confirm: PasswordConfirmSchema,
}

/**
 * The registration form without the confirmation code, under the spec's form control names
 * (firstName, lastName, phoneNumber, password, password_confirm): what Get Code needs valid and
 * what Submit sends. E-mail and position are not editable, so they are not part of it.
 */
export const RegistrationDetailsSchema = v.pipe(
  v.object(registrationDetailsEntries),
  confirmationMatches('password_confirm', FIELD_MESSAGES.passwordConfirm.mismatch),
)
export type RegistrationDetails = v.InferOutput<typeof RegistrationDetailsSchema>

/** The whole registration form: the details plus the confirmation code (required, minimum 6). */
export const RegistrationFormSchema = v.pipe(
  v.object({ ...registrationDetailsEntries, confirmCode: ConfirmCodeSchema }),
  confirmationMatches('password_confirm', FIELD_MESSAGES.passwordConfirm.mismatch),
)
export type RegistrationForm = v.InferOutput<typeof RegistrationFormSchema>
/** The form's values as typed. */
export type RegistrationFormInput = v.InferInput<typeof RegistrationFormSchema>

/** An empty registration form, pre-filled from an invitation. */
export function registrationFormValues(invitation: {
  title?: string | null | undefined
  first_name: string
  last_name: string
}): RegistrationFormInput {
  return {
    title: invitation.title ?? '',
    firstName: invitation.first_name,
    lastName: invitation.last_name,
    countryCode: DEFAULT_PHONE_COUNTRY_CODE,
    phoneNumber: '',
    password: '',
    password_confirm: '',
    confirmCode: '',
  }
}

/**
 * `POST /auth/personnel/register`: the spec's personnel model (section 3). The server takes the
 * e-mail and position from the invitation, never from the body, so here they are optional text;
 * `cell_phone` must be the phone verified under `authyId`.
 */
export const PersonnelRegisterPayloadSchema = v.pipe(
  v.object({
    id: InvitationIdSchema,
    title: TitleSchema,
    first_name: FirstNameSchema,
    last_name: LastNameSchema,
    email: v.optional(v.pipe(v.string(), v.maxLength(254))),
    position: v.optional(v.pipe(v.string(), v.maxLength(50))),
    cell_phone: PersonnelPhoneSchema,
    country_code: v.optional(PhoneCountryCodeSchema, DEFAULT_PHONE_COUNTRY_CODE),
    password: LimitedPasswordSchema,
    password_confirm: PasswordConfirmSchema,
    authyId: v.pipe(
      v.string(PERSONNEL_MESSAGES.verifyPhoneFirst),
      v.nonEmpty(PERSONNEL_MESSAGES.verifyPhoneFirst),
      v.maxLength(200),
    ),
    confirm_code: v.optional(v.pipe(v.string(), v.maxLength(50))),
    username: v.optional(v.pipe(v.string(), v.maxLength(254))),
  }),
  confirmationMatches('password_confirm', FIELD_MESSAGES.passwordConfirm.mismatch),
)
export type PersonnelRegisterPayload = v.InferOutput<typeof PersonnelRegisterPayloadSchema>
export type PersonnelRegisterPayloadInput = v.InferInput<typeof PersonnelRegisterPayloadSchema>

/**
 * The payload Submit sends: the form's details under the API's names, the invitation id and the
 * verification id. The e-mail and position are the invitation's (the server uses its own copy).
 */
export function toRegisterPayload(
  details: RegistrationDetails,
  context: { invitationId: string; email: string; position: string; authyId: string },
): PersonnelRegisterPayloadInput {
  return {
    id: context.invitationId,
    title: details.title,
    first_name: details.firstName.trim(),
    last_name: details.lastName.trim(),
    email: context.email,
    position: context.position,
    cell_phone: details.phoneNumber,
    country_code: details.countryCode,
    password: details.password,
    password_confirm: details.password_confirm,
    authyId: context.authyId,
    username: context.email,
  }
}

/** `POST /personnel` (Admin): who is invited. */
export const InvitePersonnelInputSchema = v.object({
  email: v.pipe(EmailSchema, v.maxLength(254, FIELD_MESSAGES.email.pattern)),
  first_name: FirstNameSchema,
  last_name: LastNameSchema,
  position: PositionSchema,
  title: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(20))), null),
})
export type InvitePersonnelInput = v.InferOutput<typeof InvitePersonnelInputSchema>
/** The invite form's values as typed. */
export type InvitePersonnelFormInput = v.InferInput<typeof InvitePersonnelInputSchema>

/**
 * Where an invitation stands: `pending` until registered (`used`) or revoked; a pending one past
 * its expiry reads `expired`.
 */
export const INVITATION_STATUSES = ['pending', 'used', 'revoked', 'expired'] as const
export type InvitationStatus = (typeof INVITATION_STATUSES)[number]

/**
 * An invitation as `GET /personnel` and `POST /personnel` answer it. The id is the secret of the
 * registration link, so only an Admin receives it.
 */
export const PersonnelInvitationSchema = v.object({
  id: v.optional(v.string()),
  email: v.string(),
  title: v.nullable(v.string()),
  first_name: v.string(),
  last_name: v.string(),
  position: v.string(),
  status: v.picklist(INVITATION_STATUSES),
  expires_at: v.string(),
  created_at: v.string(),
})
export type PersonnelInvitation = v.InferOutput<typeof PersonnelInvitationSchema>

/** The status a pending invitation shows at `now`. */
export function invitationStatus(
  stored: 'pending' | 'used' | 'revoked',
  expiresAt: Date,
  now: Date,
): InvitationStatus {
  if (stored === 'pending' && expiresAt.getTime() <= now.getTime()) return 'expired'
  return stored
}

/** Why an invitation link no longer opens the registration (`GET /personnel/{id}` answers 410). */
export const InvitationClosedDetailsSchema = v.object({
  reason: v.picklist(['used', 'expired']),
  practice_name: v.string(),
})
export type InvitationClosedDetails = v.InferOutput<typeof InvitationClosedDetailsSchema>

/**
 * A link whose invitation was used or has expired: what the registration page shows instead of
 * the form (the server's sentence, and what the person can do next).
 */
export class InvitationClosedError extends Error {
  readonly reason: InvitationClosedDetails['reason']
  readonly practiceName: string

  constructor(details: InvitationClosedDetails, message?: string) {
    super(
      message ??
        (details.reason === 'used'
          ? PERSONNEL_MESSAGES.invitationAlreadyUsed
          : PERSONNEL_MESSAGES.invitationExpired(details.practice_name)),
    )
    this.name = 'InvitationClosedError'
    this.reason = details.reason
    this.practiceName = details.practice_name
  }
}
