/**
 * What the signed-in areas add to the router, loaded with their first address
 * (src/app/router.tsx): the whole route tree, with their address checks, and the pending view of
 * their pages (the page's frame in grey), which no public page shows.
 */
export { routeTree } from '#src/routeTree.gen.ts'
export { PendingPage } from '#src/ui/pending-page.tsx'
