import { Image } from '@mantine/core'
import { UPLOAD_MESSAGES } from '#domain/uploads.ts'
import { ImageUpload } from '#src/ui/image-upload.tsx'

/**
 * Settings' practice logo: shown in the header of everyone in the practice, the
 * product's logo when there is none. An Admin uploads, replaces or removes it; everyone else sees
 * it with who can change it.
 */
export function PracticeLogoSection({
  imagePath,
  readOnlyNote,
  onUpload,
  onRemove,
}: {
  imagePath: string | null
  /** Set when the user may not change it: the permission's sentence. */
  readOnlyNote?: string | undefined
  onUpload: (file: File) => Promise<string | undefined>
  onRemove: () => Promise<string | undefined>
}) {
  return (
    <ImageUpload
      title="Practice logo"
      description="Shown in the header for everyone in your practice. PNG, JPEG or WebP, at most 2 MB; a wide logo about 40 pixels high looks best."
      preview={
        <Image
          src={imagePath ?? '/logo.svg'}
          alt={imagePath ? 'Current practice logo' : 'Default logo (no practice logo yet)'}
          h={48}
          w="auto"
          maw={220}
          fit="contain"
        />
      }
      chooseLabel={imagePath ? 'Replace logo' : 'Upload logo'}
      removeLabel="Remove logo"
      hasImage={imagePath !== null}
      readOnlyNote={readOnlyNote}
      savedMessage={UPLOAD_MESSAGES.logoSaved}
      removedMessage={UPLOAD_MESSAGES.logoRemoved}
      onUpload={onUpload}
      onRemove={onRemove}
    />
  )
}
