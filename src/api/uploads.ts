import { http } from '#src/lib/http.ts'

/** `DELETE /upload/files/{id}`: removes an uploaded file (a logo or an avatar). */
export async function deleteUpload(id: number): Promise<void> {
  await http.delete(`upload/files/${id}`)
}
