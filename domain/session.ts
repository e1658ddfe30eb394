import * as v from 'valibot'
import { ROLES } from './permissions.ts'

/**
 * Access rights a staff user can hold (the roles of domain/permissions.ts); the first user of a
 * new practice is an Admin, invited personnel join as Staff.
 */
export const ACCESS_RIGHTS = ROLES
export const AccessRightsSchema = v.picklist(ACCESS_RIGHTS)
export type AccessRights = v.InferOutput<typeof AccessRightsSchema>

/** The signed-in person as the API returns it (never a password hash). */
export const SessionUserSchema = v.object({
  id: v.number(),
  email: v.string(),
  username: v.optional(v.string()),
  title: v.optional(v.nullable(v.string())),
  first_name: v.string(),
  last_name: v.string(),
  image_path: v.nullable(v.string()),
  position: v.optional(v.nullable(v.string())),
  access_rights: AccessRightsSchema,
  practice_id: v.number(),
})
export type SessionUser = v.InferOutput<typeof SessionUserSchema>

/** The practice the signed-in person belongs to. */
export const SessionPracticeSchema = v.object({
  id: v.number(),
  practice_name: v.string(),
  image_path: v.nullable(v.string()),
  /** The practice's e-mail (Settings): the footer's Support Centre writes to it; empty when none. */
  email: v.optional(v.string()),
  /** The practice's own footer links (domain/practice-settings.ts); empty opens the product's view. */
  footer_links: v.optional(
    v.object({ about: v.string(), privacy: v.string(), support: v.string() }),
  ),
})
export type SessionPractice = v.InferOutput<typeof SessionPracticeSchema>

/**
 * The current user: what `POST /auth/local` and `POST /auth/reset-password` answer and what the
 * SPA stores under the key `currentUser`.
 */
export const SessionSchema = v.object({
  jwt: v.string(),
  user: SessionUserSchema,
  practice: SessionPracticeSchema,
})
export type Session = v.InferOutput<typeof SessionSchema>
