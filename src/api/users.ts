import * as v from 'valibot'
import { type StaffMember, StaffMemberSchema } from '#domain/practice-data.ts'
import { parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'

/** `GET /users`: the staff of the signed-in user's practice. */
export async function listUsers(): Promise<StaffMember[]> {
  return parseAnswer('GET /api/users', v.array(StaffMemberSchema), await http.get('users').json())
}

/** `GET /users/{id}`: one staff member of the practice. */
export async function getUser(id: number): Promise<StaffMember> {
  return parseAnswer('GET /api/users/:id', StaffMemberSchema, await http.get(`users/${id}`).json())
}
