import type { CSSProperties, ReactNode } from 'react'
import classes from './table-scroll.module.css'

/**
 * Lets a wide table scroll sideways inside the page on a narrow window (the page itself never
 * scrolls horizontally); the region is focusable so keyboard users can scroll it too. On a phone
 * the table shows as a stack of cards instead, one per row, each value under its column's name:
 * every cell carries that name as `data-label`.
 */
export function TableScroll({
  label,
  minWidth,
  children,
}: {
  /** Names the region for screen readers, e.g. "Patients". */
  label: string
  /** Width below which the table scrolls instead of squeezing, in px (above phone width). */
  minWidth: number
  children: ReactNode
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section className={classes.root} tabIndex={0} aria-label={label}>
      <div
        className={classes.inner}
        style={{ '--table-min-width': `${minWidth}px` } as CSSProperties}
      >
        {children}
      </div>
    </section>
  )
}
