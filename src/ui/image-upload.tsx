import { Alert, Button, FileButton, Group, Paper, Stack, Text, Title } from '@mantine/core'
import { IconTrash, IconUpload } from '@tabler/icons-react'
import { type ReactNode, useId, useRef, useState } from 'react'
import { precheckUpload, UPLOAD_MEDIA_TYPES } from '#domain/uploads.ts'

/**
 * One image of the practice or the member: its preview, a button that opens the file
 * picker, and Remove. The file is checked here first (type by name or declared type, 2 MB) with
 * the server's sentences; the server checks its content again and has the last word. A refusal
 * shows inline and keeps the image there was.
 */
export function ImageUpload({
  title,
  description,
  preview,
  chooseLabel,
  removeLabel,
  hasImage,
  readOnlyNote,
  savedMessage,
  removedMessage,
  onUpload,
  onRemove,
}: {
  title: string
  description: string
  /** The current image, or what shows without one. */
  preview: ReactNode
  chooseLabel: string
  removeLabel: string
  hasImage: boolean
  /** Set when the user may not change it: says why, instead of the buttons. */
  readOnlyNote?: string | undefined
  savedMessage: string
  removedMessage: string
  /** Uploads and shows the file; answers the refusal to show, or nothing when done. */
  onUpload: (file: File) => Promise<string | undefined>
  /** Removes the image; answers the refusal to show, or nothing when done. */
  onRemove: () => Promise<string | undefined>
}) {
  const titleId = useId()
  const resetRef = useRef<() => void>(null)
  const [busy, setBusy] = useState<'upload' | 'remove' | null>(null)
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null)

  const run = async (kind: 'upload' | 'remove', action: () => Promise<string | undefined>) => {
    setBusy(kind)
    setOutcome(null)
    const failure = await action()
    setBusy(null)
    setOutcome(
      failure
        ? { ok: false, message: failure }
        : { ok: true, message: kind === 'upload' ? savedMessage : removedMessage },
    )
  }

  const choose = (file: File | null) => {
    // The same file may be chosen again after a refusal.
    resetRef.current?.()
    if (!file) return
    const refusal = precheckUpload(file)
    if (refusal) {
      setOutcome({ ok: false, message: refusal })
      return
    }
    void run('upload', () => onUpload(file))
  }

  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={titleId}>
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} size="h4" id={titleId}>
            {title}
          </Title>
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        </Stack>
        {outcome && (
          <Alert color={outcome.ok ? 'green' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
            {outcome.message}
          </Alert>
        )}
        <Group gap="md" wrap="wrap" align="center">
          {preview}
          {readOnlyNote ? (
            <Text size="sm" c="dimmed">
              {readOnlyNote}
            </Text>
          ) : (
            <Group gap="sm" wrap="wrap">
              <FileButton
                onChange={choose}
                accept={UPLOAD_MEDIA_TYPES.join(',')}
                resetRef={resetRef}
                disabled={busy !== null}
              >
                {(props) => (
                  <Button
                    {...props}
                    leftSection={<IconUpload size={16} aria-hidden />}
                    loading={busy === 'upload'}
                    disabled={busy !== null}
                  >
                    {chooseLabel}
                  </Button>
                )}
              </FileButton>
              {hasImage && (
                <Button
                  variant="default"
                  leftSection={<IconTrash size={16} aria-hidden />}
                  loading={busy === 'remove'}
                  disabled={busy !== null}
                  onClick={() => void run('remove', onRemove)}
                >
                  {removeLabel}
                </Button>
              )}
            </Group>
          )}
        </Group>
      </Stack>
    </Paper>
  )
}
