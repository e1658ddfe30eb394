import { type PromotionSendAnswer, PromotionSendAnswerSchema } from '#domain/offers.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `POST /promotions/{id}/send` (Manager, Admin): queues the live offer's e-mails at once. */
export async function sendPromotion(id: number): Promise<PromotionSendAnswer> {
  return parseAnswer(
    'POST /api/promotions/:id/send',
    PromotionSendAnswerSchema,
    await http.post(`promotions/${id}/send`).json(),
  )
}

/** What the offer's page says after "Send to patients". */
export function sentMessage(queued: number): string {
  if (queued === 0)
    return 'Every subscribed patient was already sent this offer: no e-mail was sent.'
  return `The offer is on its way to ${queued.toLocaleString('en-US')} ${queued === 1 ? 'patient' : 'patients'}.`
}
