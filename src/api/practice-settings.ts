import * as v from 'valibot'
import {
  type PracticeAnswer,
  PracticeAnswerSchema,
  type PracticeSettingsInput,
} from '#domain/practice-settings.ts'
import { http } from '#src/lib/http.ts'

// Apart from the plans and coupons (practice.ts) that the sign-up wizard fetches, so /signup
// does not download the practice settings' schemas.

/** `GET /practice`: the practice's details (the Nextech secrets only as set or not). */
export async function getPractice(): Promise<PracticeAnswer> {
  return v.parse(PracticeAnswerSchema, await http.get('practice').json())
}

/** `PUT /practice` (Admin): an empty Nextech username or password keeps the stored one. */
export async function savePractice(values: PracticeSettingsInput): Promise<PracticeAnswer> {
  return v.parse(PracticeAnswerSchema, await http.put('practice', { json: values }).json())
}
