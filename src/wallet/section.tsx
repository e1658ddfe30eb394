import { Paper, Stack, Title } from '@mantine/core'
import { type ReactNode, useId } from 'react'

/** A titled part of the home screen: a region named by its heading. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId()
  return (
    <Paper component="section" aria-labelledby={id} withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={2} size="h3" id={id}>
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  )
}
