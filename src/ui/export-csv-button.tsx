import { Button, Stack, Text } from '@mantine/core'
import { IconDownload } from '@tabler/icons-react'
import { useState } from 'react'
import { apiErrorMessage } from '#src/lib/http.ts'
import { saveFile } from '#src/lib/save-file.ts'

/**
 * "Export CSV": downloads one of the server's CSV exports with the session's token (a plain link
 * could not carry it). Shown only to roles with `reports.money`; the server refuses the others.
 */
export function ExportCsvButton({
  label,
  download,
}: {
  label: string
  /** Fetches the file (the route passes the API call). */
  download: () => Promise<{ blob: Blob; fileName: string }>
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  return (
    <Stack gap={4} align="flex-start">
      <Button
        variant="default"
        leftSection={<IconDownload size={16} aria-hidden />}
        loading={busy}
        onClick={async () => {
          setBusy(true)
          setError(null)
          try {
            const { blob, fileName } = await download()
            saveFile(blob, fileName)
          } catch (failure) {
            setError(await apiErrorMessage(failure))
          } finally {
            setBusy(false)
          }
        }}
      >
        {label}
      </Button>
      {error && (
        <Text size="sm" c="red.8" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  )
}
