import { Paper, Stack, type StackProps, Text, Title } from '@mantine/core'
import type { FormEventHandler, ReactNode } from 'react'

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

/**
 * A form in a bordered card, named by its heading and the dimmed `intro` under it, if any
 * (My Profile's forms, the invitation of personnel).
 */
export function FormCard({
  id,
  title,
  intro,
  onSubmit,
  children,
}: {
  /** The heading's id, which names the form. */
  id: string
  title: ReactNode
  intro?: ReactNode
  onSubmit: FormEventHandler<HTMLFormElement>
  children: ReactNode
}) {
  const heading = (
    <Title order={2} size="h4" id={id}>
      {title}
    </Title>
  )
  return (
    <Paper withBorder p="lg" radius="md">
      <form noValidate aria-labelledby={id} onSubmit={onSubmit}>
        <Stack gap="md">
          {intro ? (
            <Stack gap={2}>
              {heading}
              <Text size="sm" c="dimmed">
                {intro}
              </Text>
            </Stack>
          ) : (
            heading
          )}
          {children}
        </Stack>
      </form>
    </Paper>
  )
}
