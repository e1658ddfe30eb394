import * as v from 'valibot'
import { OutboxAnswerSchema, type OutboxMessage } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/**
 * `GET /dev/outbox` (development servers only): the SMS codes and e-mails the server recorded
 * instead of sending, newest first.
 */
export async function getOutbox(): Promise<OutboxMessage[]> {
  return v.parse(OutboxAnswerSchema, await http.get('dev/outbox').json()).messages
}
