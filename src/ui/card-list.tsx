import { Card, Stack } from '@mantine/core'
import type { Key, ReactNode } from 'react'

/**
 * The list of cards that stands in for a table on small screens (hidden from `sm` up): one
 * bordered card per item, drawn by `children`.
 */
export function CardList<T>({
  items,
  itemKey,
  children,
}: {
  items: readonly T[]
  itemKey: (item: T) => Key
  children: (item: T) => ReactNode
}) {
  return (
    <Stack hiddenFrom="sm" gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
      {items.map((item) => (
        <Card key={itemKey(item)} withBorder padding="md" radius="md" component="li">
          {children(item)}
        </Card>
      ))}
    </Stack>
  )
}
