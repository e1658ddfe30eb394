import { Avatar } from '@mantine/core'
import type { StaffMember } from '#domain/practice-data.ts'
import { UPLOAD_MESSAGES } from '#domain/uploads.ts'
import { ImageUpload } from '#src/ui/image-upload.tsx'

/**
 * My Profile's avatar: the picture in the header's account menu and on the profile,
 * the first initial when there is none.
 */
export function AvatarUpload({
  member,
  onUpload,
  onRemove,
}: {
  member: StaffMember
  onUpload: (file: File) => Promise<string | undefined>
  onRemove: () => Promise<string | undefined>
}) {
  const name = `${member.first_name} ${member.last_name}`
  return (
    <ImageUpload
      title="Your avatar"
      description="Shown in the header and on your profile. PNG, JPEG or WebP, at most 2 MB; a square picture looks best."
      preview={
        <Avatar
          src={member.image_path}
          alt={member.image_path ? `Current avatar of ${name}` : undefined}
          size="xl"
          radius={999}
          color="glow"
        >
          {member.first_name.charAt(0).toUpperCase()}
        </Avatar>
      }
      chooseLabel={member.image_path ? 'Replace avatar' : 'Upload avatar'}
      removeLabel="Remove avatar"
      hasImage={member.image_path !== null}
      savedMessage={UPLOAD_MESSAGES.avatarSaved}
      removedMessage={UPLOAD_MESSAGES.avatarRemoved}
      onUpload={onUpload}
      onRemove={onRemove}
    />
  )
}
