import * as v from 'valibot'

/**
 * Uploaded images: the practice logo and a member's avatar. `POST /upload/files` takes
 * one PNG, JPEG or WebP image of at most {@link UPLOAD_MAX_BYTES}, recognised by its content, and
 * keeps it without its metadata; `PUT /practice/logo` and `PUT /users/{id}/avatar` then link it.
 * The screens check size and type first with the same sentences; the server decides.
 */

/** The largest file accepted: 2 MB. */
export const UPLOAD_MAX_BYTES = 2 * 1024 * 1024

/**
 * The widest and tallest picture accepted, in pixels: 4,000 × 4,000 at 4 bytes a pixel
 * is 64 MB once decoded, in the server's check and in every browser that shows it.
 */
export const UPLOAD_MAX_DIMENSION = 4000

const pixels = (value: number) => value.toLocaleString('en-US')

/** The image types accepted, by their media type. */
export const UPLOAD_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const
export type UploadMediaType = (typeof UPLOAD_MEDIA_TYPES)[number]

/** What an uploaded file is for. */
export const UPLOAD_PURPOSES = ['logo', 'avatar'] as const
export type UploadPurpose = (typeof UPLOAD_PURPOSES)[number]

/** What the API and the screens say (ours: not in the spec). */
export const UPLOAD_MESSAGES = {
  fileRequired: 'Choose an image file to upload.',
  purposeRequired: 'Say what the image is for: logo or avatar.',
  tooLarge: 'The file is larger than 2 MB. Choose an image of at most 2 MB.',
  wrongType: 'This file is not a PNG, JPEG or WebP image. Choose a PNG, JPEG or WebP image.',
  damaged:
    'This image is damaged or incomplete. Save it again as PNG, JPEG or WebP and upload it once more.',
  tooManyPixels: (width: number, height: number) =>
    `This image is ${pixels(width)} × ${pixels(height)} pixels; the largest accepted is ${pixels(UPLOAD_MAX_DIMENSION)} × ${pixels(UPLOAD_MAX_DIMENSION)}. Make it smaller and upload it again.`,
  tooManyFramePixels: `This animation's frames together hold more pixels than one picture of ${pixels(UPLOAD_MAX_DIMENSION)} × ${pixels(UPLOAD_MAX_DIMENSION)}. Use fewer or smaller frames and upload it again.`,
  notMultipart: 'Send the image as multipart/form-data with the field "file".',
  uploadRequired: 'Choose an uploaded image: upload_id must be the id of an uploaded file.',
  wrongPurpose: (purpose: UploadPurpose) =>
    `This upload is not a${purpose === 'avatar' ? 'n avatar' : ' logo'}: upload the image again as a${purpose === 'avatar' ? 'n avatar' : ' logo'}.`,
  logoSaved: 'Practice logo saved.',
  logoRemoved: 'Practice logo removed.',
  avatarSaved: 'Avatar saved.',
  avatarRemoved: 'Avatar removed.',
} as const

/** `POST /upload/files`: the stored file; `url` serves it (an unguessable address, no session). */
export const UploadedFileSchema = v.object({
  id: v.number(),
  name: v.string(),
  mime: v.picklist(UPLOAD_MEDIA_TYPES),
  size: v.number(),
  purpose: v.picklist(UPLOAD_PURPOSES),
  url: v.string(),
})
export type UploadedFile = v.InferOutput<typeof UploadedFileSchema>

/** `PUT /practice/logo` and `PUT /users/{id}/avatar` body: the uploaded file to show. */
export const ImageLinkPayloadSchema = v.object({
  upload_id: v.pipe(
    v.number(UPLOAD_MESSAGES.uploadRequired),
    v.integer(UPLOAD_MESSAGES.uploadRequired),
    v.minValue(1, UPLOAD_MESSAGES.uploadRequired),
    v.maxValue(2_147_483_647, UPLOAD_MESSAGES.uploadRequired),
  ),
})
export type ImageLinkPayload = v.InferOutput<typeof ImageLinkPayloadSchema>

/** `PUT /practice/logo` and `DELETE /practice/logo`: the logo's address, or null for none. */
export const PracticeLogoSchema = v.object({ image_path: v.nullable(v.string()) })
export type PracticeLogo = v.InferOutput<typeof PracticeLogoSchema>

/** The media type of a file name's extension, for the screens' first check; null for others. */
export function mediaTypeOfName(name: string): UploadMediaType | null {
  const extension = name.toLowerCase().split('.').pop() ?? ''
  if (extension === 'png') return 'image/png'
  if (extension === 'jpg' || extension === 'jpeg') return 'image/jpeg'
  if (extension === 'webp') return 'image/webp'
  return null
}

/**
 * What the screens say before sending a file, or null when it may go: the server checks the
 * content again, so a renamed file is still refused there.
 */
export function precheckUpload(file: { name: string; size: number; type: string }): string | null {
  const declared = (UPLOAD_MEDIA_TYPES as readonly string[]).includes(file.type)
  if (!declared && mediaTypeOfName(file.name) === null) return UPLOAD_MESSAGES.wrongType
  if (file.size > UPLOAD_MAX_BYTES) return UPLOAD_MESSAGES.tooLarge
  if (file.size === 0) return UPLOAD_MESSAGES.damaged
  return null
}
