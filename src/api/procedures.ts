import * as v from 'valibot'
import { type Procedure, ProcedureSchema } from '#domain/practice-data.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /procedures?practice={id}`: the treatments the practice offers. */
export async function listProcedures(practiceId: number): Promise<Procedure[]> {
  return parseAnswer(
    'GET /api/procedures',
    v.array(ProcedureSchema),
    await http.get('procedures', { searchParams: { practice: practiceId } }).json(),
  )
}
