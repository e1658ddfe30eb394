import {
  type LedgerPage,
  LedgerPageSchema,
  type LedgerPosting,
  LedgerPostingSchema,
  type ProgrammeRules,
  ProgrammeRulesSchema,
} from '#domain/ledger.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /patients/{id}/ledger`: a page of the patient's entries, the balance and what lapses soon. */
export async function getLedger(patientId: number, page = 1, pageSize = 10): Promise<LedgerPage> {
  return parseAnswer(
    'GET /api/patients/:id/ledger',
    LedgerPageSchema,
    await http.get(`patients/${patientId}/ledger`, { searchParams: { page, pageSize } }).json(),
  )
}

/** `POST /patients/{id}/adjustments` (Manager, Admin): + or - points with a reason, once per key. */
export async function adjustPoints(
  patientId: number,
  input: Body<'POST /api/patients/:id/adjustments'>,
): Promise<LedgerPosting> {
  return parseAnswer(
    'POST /api/patients/:id/adjustments',
    LedgerPostingSchema,
    await http.post(`patients/${patientId}/adjustments`, { json: input }).json(),
  )
}

/** `POST /ledger/{entryId}/reverse` (Manager, Admin): cancels one entry, once. */
export async function reverseEntry(
  entryId: number,
  input: Body<'POST /api/ledger/:entryId/reverse'>,
): Promise<LedgerPosting> {
  return parseAnswer(
    'POST /api/ledger/:entryId/reverse',
    LedgerPostingSchema,
    await http.post(`ledger/${entryId}/reverse`, { json: input }).json(),
  )
}

/** `GET /practice/rules`: the practice's programme rules. */
export async function getProgrammeRules(): Promise<ProgrammeRules> {
  return parseAnswer(
    'GET /api/practice/rules',
    ProgrammeRulesSchema,
    await http.get('practice/rules').json(),
  )
}

/** `PUT /practice/rules` (Admin): saves the rules; they apply from then on. */
export async function saveProgrammeRules(
  rules: Body<'PUT /api/practice/rules'>,
): Promise<ProgrammeRules> {
  return parseAnswer(
    'PUT /api/practice/rules',
    ProgrammeRulesSchema,
    await http.put('practice/rules', { json: rules }).json(),
  )
}
