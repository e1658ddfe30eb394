import { SimpleGrid, Skeleton, Stack } from '@mantine/core'

/**
 * Shown in place of a page whose data takes a while: the page's frame in grey (its heading, a line
 * under it, tiles and rows) where the data will be, inside the shell's header and navigation, so
 * that a slow first load never shows a white page. Screen readers hear "Loading the
 * page"; the indicator above says what happens.
 */
export function PendingPage() {
  return (
    <Stack gap="lg" role="status" aria-label="Loading the page" aria-busy="true">
      <Stack gap={8} aria-hidden>
        <Skeleton height={30} width="min(320px, 70%)" radius="sm" />
        <Skeleton height={14} width="min(220px, 50%)" radius="sm" />
      </Stack>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md" aria-hidden>
        {TILES.map((tile) => (
          <Skeleton key={tile} height={96} radius="md" />
        ))}
      </SimpleGrid>
      <Stack gap="sm" aria-hidden>
        {ROWS.map((row) => (
          <Skeleton key={row} height={40} radius="sm" />
        ))}
      </Stack>
    </Stack>
  )
}

const TILES = ['first', 'second', 'third', 'fourth'] as const
const ROWS = ['first', 'second', 'third', 'fourth', 'fifth'] as const
