import { type StaffMember, StaffMemberSchema } from '#domain/practice-data.ts'
import {
  type PracticeLogo,
  PracticeLogoSchema,
  type UploadedFile,
  UploadedFileSchema,
  type UploadPurpose,
} from '#domain/uploads.ts'
import { type Body, parseAnswer } from '#src/api/contract.ts'
import { http } from '#src/lib/http.ts'
import { isSessionRemembered, readSession, writeSession } from '#src/lib/session.ts'

/** `POST /upload/files`: one image as multipart (`file`, `purpose`); the server checks it. */
export async function uploadImage(file: File, purpose: UploadPurpose): Promise<UploadedFile> {
  const form = new FormData()
  form.set('file', file)
  form.set('purpose', purpose)
  return parseAnswer(
    'POST /api/upload/files',
    UploadedFileSchema,
    await http.post('upload/files', { body: form }).json(),
  )
}

/** `DELETE /upload/files/{id}`: removes an uploaded file (a logo or an avatar). */
export async function deleteUpload(id: number): Promise<void> {
  await http.delete(`upload/files/${id}`)
}

/** The stored session with `change` applied, so the header follows without a new sign-in. */
function updateSession(change: (session: NonNullable<ReturnType<typeof readSession>>) => void) {
  const session = readSession()
  if (!session) return
  const next = structuredClone(session)
  change(next)
  writeSession(next, isSessionRemembered())
}

/** Uploads `file` as the practice logo and shows it (`PUT /practice/logo`); Admin. */
export async function savePracticeLogo(file: File): Promise<PracticeLogo> {
  const upload = await uploadImage(file, 'logo')
  const logo = parseAnswer(
    'PUT /api/practice/logo',
    PracticeLogoSchema,
    await http
      .put('practice/logo', {
        json: { upload_id: upload.id } satisfies Body<'PUT /api/practice/logo'>,
      })
      .json(),
  )
  updateSession((session) => {
    session.practice.image_path = logo.image_path
  })
  return logo
}

/** `DELETE /practice/logo`: back to the product's logo; Admin. */
export async function removePracticeLogo(): Promise<PracticeLogo> {
  const logo = parseAnswer(
    'DELETE /api/practice/logo',
    PracticeLogoSchema,
    await http.delete('practice/logo').json(),
  )
  updateSession((session) => {
    session.practice.image_path = logo.image_path
  })
  return logo
}

/** Uploads `file` as the own avatar and shows it (`PUT /users/{own id}/avatar`). */
export async function saveOwnAvatar(id: number, file: File): Promise<StaffMember> {
  const upload = await uploadImage(file, 'avatar')
  const member = parseAnswer(
    'PUT /api/users/:id/avatar',
    StaffMemberSchema,
    await http
      .put(`users/${id}/avatar`, {
        json: { upload_id: upload.id } satisfies Body<'PUT /api/users/:id/avatar'>,
      })
      .json(),
  )
  updateSession((session) => {
    session.user.image_path = member.image_path
  })
  return member
}

/** `DELETE /users/{own id}/avatar`: the header shows the first initial again. */
export async function removeOwnAvatar(id: number): Promise<StaffMember> {
  const member = parseAnswer(
    'DELETE /api/users/:id/avatar',
    StaffMemberSchema,
    await http.delete(`users/${id}/avatar`).json(),
  )
  updateSession((session) => {
    session.user.image_path = member.image_path
  })
  return member
}
