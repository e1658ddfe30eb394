import { PageLoadingIndicator, PendingPage } from '#src/ui/page-loading.tsx'
import { PublicPage } from '#src/ui/public-page.tsx'

/**
 * /unsubscribe/:id while its link is being used (the call is the page's loader): the page's frame
 * and a loader. The route shows it for a slow call; the build prerenders it with the
 * "Please wait..." indicator as the page's first paint, before the app has loaded.
 */
export function UnsubscribePending({ withIndicator = false }: { withIndicator?: boolean }) {
  return (
    <>
      {withIndicator && <PageLoadingIndicator visible />}
      <PublicPage title="Unsubscribe">
        <PendingPage />
      </PublicPage>
    </>
  )
}
