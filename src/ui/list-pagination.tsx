import { Pagination } from '@mantine/core'

/**
 * The pages of a server-paged list: nothing when everything fits on one page; otherwise Mantine's
 * pagination with names a screen reader can say ("Previous page", "Page 3", or `itemLabel`'s).
 */
export function ListPagination({
  list: { total, pageSize, page },
  onPage,
  itemLabel = (n) => `Page ${n}`,
}: {
  /** The page shown: how many rows the list has in all, how many a page holds, and its number. */
  list: { total: number; pageSize: number; page: number }
  onPage: (page: number) => void
  itemLabel?: (page: number) => string
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize))
  if (pages <= 1) return null
  return (
    <Pagination
      total={pages}
      value={page}
      onChange={onPage}
      getControlProps={(control) => ({
        'aria-label': control === 'previous' ? 'Previous page' : 'Next page',
      })}
      getItemProps={(n) => ({ 'aria-label': itemLabel(n) })}
      siblings={1}
      boundaries={1}
    />
  )
}
