import type { ReactNode } from 'react'
import classes from './table-scroll.module.css'

/**
 * Lets a wide table scroll sideways inside the page on small screens (the page itself never
 * scrolls horizontally). The region is focusable so keyboard users can scroll it too.
 */
export function TableScroll({
  label,
  minWidth,
  children,
}: {
  /** Names the region for screen readers, e.g. "Patients". */
  label: string
  /** Width below which the table scrolls instead of squeezing, in px. */
  minWidth: number
  children: ReactNode
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section className={classes.root} tabIndex={0} aria-label={label}>
      <div style={{ minWidth }}>{children}</div>
    </section>
  )
}
