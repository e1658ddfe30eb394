import { Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** One numbered clause of a sign-up document: its heading (h3), then its paragraph. */
export function Clause({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <Title order={3} size="h5">
        {title}
      </Title>
      <Text>{children}</Text>
    </>
  )
}
