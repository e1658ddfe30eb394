import { type PracticeAnswer, PracticeAnswerSchema } from '#domain/practice-settings.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'
import { isSessionRemembered, readSession, writeSession } from '#src/lib/session.ts'

// Apart from the plans and coupons (practice.ts) that the sign-up wizard fetches, so /signup
// does not download the practice settings' schemas.

/** `GET /practice`: the practice's details (the Nextech secrets only as set or not). */
export async function getPractice(): Promise<PracticeAnswer> {
  return parseAnswer('GET /api/practice', PracticeAnswerSchema, await http.get('practice').json())
}

/** `PUT /practice` (Admin): an empty Nextech username or password keeps the stored one. */
export async function savePractice(values: Body<'PUT /api/practice'>): Promise<PracticeAnswer> {
  return parseAnswer(
    'PUT /api/practice',
    PracticeAnswerSchema,
    await http.put('practice', { json: values }).json(),
  )
}

/**
 * Brings the stored session's practice up to date with `GET /practice`: a colleague
 * who changed the logo or the name since this browser signed in is seen at the next full page
 * load, not at the next sign-in. Each logo has an address of its own, cached for good, so the
 * new address is what shows the new logo. Nothing changes when the answer is the same or fails.
 */
export async function refreshSessionPractice(): Promise<void> {
  const practice = await getPractice()
  const session = readSession()
  if (!session || session.practice.id !== practice.id) return
  if (
    session.practice.image_path === practice.image_path &&
    session.practice.practice_name === practice.practice_name
  ) {
    return
  }
  writeSession(
    {
      ...session,
      practice: {
        ...session.practice,
        image_path: practice.image_path,
        practice_name: practice.practice_name,
      },
    },
    isSessionRemembered(),
  )
}
