import { type SubscriptionAnswer, SubscriptionAnswerSchema } from '#domain/subscription.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /practice/subscription` (Admin): plans, term, card on file, renewal or end. */
export async function getSubscription(): Promise<SubscriptionAnswer> {
  return parseAnswer(
    'GET /api/practice/subscription',
    SubscriptionAnswerSchema,
    await http.get('practice/subscription').json(),
  )
}

/** `POST /practice/subscription/cancel` (Admin): ends it at the end of the term already paid. */
export async function cancelSubscription(): Promise<SubscriptionAnswer> {
  return parseAnswer(
    'POST /api/practice/subscription/cancel',
    SubscriptionAnswerSchema,
    await http.post('practice/subscription/cancel').json(),
  )
}

/** `POST /practice/subscription/resume` (Admin): keeps it renewing, while the term lasts. */
export async function resumeSubscription(): Promise<SubscriptionAnswer> {
  return parseAnswer(
    'POST /api/practice/subscription/resume',
    SubscriptionAnswerSchema,
    await http.post('practice/subscription/resume').json(),
  )
}

/** `PUT /practice/subscription/card` (Admin): the card of the one-time token goes on file. */
export async function changeSubscriptionCard(token: string): Promise<SubscriptionAnswer> {
  return parseAnswer(
    'PUT /api/practice/subscription/card',
    SubscriptionAnswerSchema,
    await http
      .put('practice/subscription/card', {
        json: { token } satisfies Body<'PUT /api/practice/subscription/card'>,
      })
      .json(),
  )
}
