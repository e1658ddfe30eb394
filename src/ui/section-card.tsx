import { Paper, Stack, type StackProps, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** A page's section in a bordered card, named by its heading (Settings, My Profile). */
export function SectionCard({
  id,
  title,
  align,
  children,
}: {
  /** The heading's id, which names the section. */
  id: string
  title: ReactNode
  align?: StackProps['align']
  children: ReactNode
}) {
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={id}>
      <Stack gap="md" align={align}>
        <Title order={2} size="h4" id={id}>
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  )
}
