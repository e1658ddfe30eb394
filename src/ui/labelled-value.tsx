import { Stack, Text } from '@mantine/core'

/** A value read, not edited, under its label in grey; a long word wraps rather than overflows. */
export function LabelledValue({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={2} miw={0}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={500} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Stack>
  )
}
