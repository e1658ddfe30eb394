import * as v from 'valibot'

/**
 * Answers of the practice-scoped data calls (spec section 7, DESIGN.md section 4). The spec does
 * not show these screens' contents, so the fields are ours: enough for every shell area to show
 * something real. Timestamps travel as ISO 8601 strings; money in cents.
 */

const IsoDate = v.string()

export const PatientSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  first_name: v.string(),
  last_name: v.string(),
  email: v.nullable(v.string()),
  phone: v.nullable(v.string()),
  email_subscription: v.boolean(),
  unsubscribe_id: v.string(),
  converted: v.boolean(),
  points: v.number(),
  created_at: IsoDate,
})
export type Patient = v.InferOutput<typeof PatientSchema>

/** Body of `POST /patients` and `PUT /patients/{id}` (PUT takes any subset). */
export const PatientInputSchema = v.object({
  first_name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  last_name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  email: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.email(), v.maxLength(254)))),
  phone: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.regex(/^\+?\d{7,15}$/)))),
  email_subscription: v.optional(v.boolean()),
  converted: v.optional(v.boolean()),
  points: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
})
export type PatientInput = v.InferOutput<typeof PatientInputSchema>

export const ProcedureSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  name: v.string(),
  price: v.number(),
  points: v.number(),
})
export type Procedure = v.InferOutput<typeof ProcedureSchema>

export const ProductSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  name: v.string(),
  price: v.number(),
  points: v.number(),
})
export type Product = v.InferOutput<typeof ProductSchema>

export const AppointmentSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  patient_id: v.number(),
  procedure_id: v.nullable(v.number()),
  starts_at: IsoDate,
  status: v.picklist(['scheduled', 'completed', 'cancelled']),
})
export type Appointment = v.InferOutput<typeof AppointmentSchema>

export const ActivitySchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  patient_id: v.number(),
  kind: v.string(),
  description: v.string(),
  points: v.number(),
  created_at: IsoDate,
})
export type Activity = v.InferOutput<typeof ActivitySchema>

export const PromotionSchema = v.object({
  id: v.number(),
  practice_id: v.number(),
  title: v.string(),
  description: v.string(),
  points: v.number(),
  starts_at: v.nullable(IsoDate),
  ends_at: v.nullable(IsoDate),
})
export type Promotion = v.InferOutput<typeof PromotionSchema>

/** A patient's promotion: claimed, then redeemed. */
export const PatientPromotionSchema = v.object({
  patient_id: v.number(),
  promotion_id: v.number(),
  status: v.picklist(['claimed', 'redeemed']),
  claimed_at: v.nullable(IsoDate),
  redeemed_at: v.nullable(IsoDate),
  promotion: v.optional(PromotionSchema),
})
export type PatientPromotion = v.InferOutput<typeof PatientPromotionSchema>

/** Body of `PUT /promotions/claimed/{promo}` and `PUT /promotions/redeemed/{promo}`. */
export const PromotionActionInputSchema = v.object({
  promo: v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/))]),
  patient_id: v.pipe(v.number(), v.integer(), v.minValue(1)),
})
export type PromotionActionInput = v.InferOutput<typeof PromotionActionInputSchema>

/** A staff member of the practice as the Personnel area lists it. */
export const StaffMemberSchema = v.object({
  id: v.number(),
  email: v.string(),
  title: v.nullable(v.string()),
  first_name: v.string(),
  last_name: v.string(),
  position: v.nullable(v.string()),
  access_rights: v.string(),
  image_path: v.nullable(v.string()),
})
export type StaffMember = v.InferOutput<typeof StaffMemberSchema>

/** `GET /personnel/{id}`: what a registration form pre-fills from an invitation. */
export const InvitationPreviewSchema = v.object({
  first_name: v.string(),
  last_name: v.string(),
  email: v.string(),
  position: v.string(),
  title: v.optional(v.nullable(v.string())),
})
export type InvitationPreview = v.InferOutput<typeof InvitationPreviewSchema>

/** A message the development outbox recorded instead of sending (`GET /dev/outbox`). */
export const OutboxMessageSchema = v.object({
  channel: v.picklist(['sms', 'email']),
  to: v.string(),
  subject: v.optional(v.nullable(v.string())),
  text: v.string(),
  code: v.optional(v.nullable(v.string())),
  link: v.optional(v.nullable(v.string())),
  sentAt: IsoDate,
})
export type OutboxMessage = v.InferOutput<typeof OutboxMessageSchema>
export const OutboxAnswerSchema = v.object({ messages: v.array(OutboxMessageSchema) })
