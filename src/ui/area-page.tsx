import { Alert, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** The frame of a shell area: its name as the page's h1, an optional line under it, the content. */
export function AreaPage({
  title,
  description,
  children,
}: {
  title: string
  description?: ReactNode
  children?: ReactNode
}) {
  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && <Text c="dimmed">{description}</Text>}
      </Stack>
      {children}
    </Stack>
  )
}

/** Said where a list has nothing in it yet. */
export function EmptyNote({ children }: { children: ReactNode }) {
  return (
    <Alert color="gray" variant="light">
      {children}
    </Alert>
  )
}
