import {
  type NextechStatus,
  NextechStatusSchema,
  type NextechTestAnswer,
  NextechTestAnswerSchema,
} from '#domain/nextech.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /practice/integrations/nextech`: the connection, in words (never the credentials). */
export async function getNextechStatus(): Promise<NextechStatus> {
  return parseAnswer(
    'GET /api/practice/integrations/nextech',
    NextechStatusSchema,
    await http.get('practice/integrations/nextech').json(),
  )
}

/** `POST /practice/integrations/nextech/test` (Admin): signs in at Nextech and reads a patient. */
export async function testNextechConnection(): Promise<NextechTestAnswer> {
  return parseAnswer(
    'POST /api/practice/integrations/nextech/test',
    NextechTestAnswerSchema,
    await http.post('practice/integrations/nextech/test').json(),
  )
}
