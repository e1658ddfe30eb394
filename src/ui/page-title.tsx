import { VisuallyHidden } from '@mantine/core'
import { useRouterState } from '@tanstack/react-router'
import { useEffect, useRef, useState } from 'react'
import { pageTitle } from '#domain/page-titles.ts'

/**
 * Gives every page its own document title (domain/page-titles.ts) and announces the new title to
 * screen readers after each navigation inside the app: a single-page app changes pages
 * without the page load that would otherwise make a screen reader read the new title. The first
 * page is not announced; the browser reads its title itself.
 */
export function PageTitle() {
  const pathname = useRouterState({
    select: (state) => (state.resolvedLocation ?? state.location).pathname,
  })
  const [announcement, setAnnouncement] = useState('')
  const first = useRef(true)
  useEffect(() => {
    const title = pageTitle(pathname)
    document.title = title
    if (first.current) {
      first.current = false
      return
    }
    setAnnouncement(title)
  }, [pathname])
  return (
    <VisuallyHidden role="status" aria-live="polite" aria-atomic="true">
      {announcement}
    </VisuallyHidden>
  )
}
