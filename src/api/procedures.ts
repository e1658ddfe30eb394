import * as v from 'valibot'
import { type Procedure, ProcedureSchema } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/** `GET /procedures?practice={id}`: the treatments the practice offers. */
export async function listProcedures(practiceId: number): Promise<Procedure[]> {
  return v.parse(
    v.array(ProcedureSchema),
    await http.get('procedures', { searchParams: { practice: practiceId } }).json(),
  )
}
