import { Hono } from 'hono'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { practiceDetailRoutes, practiceRoutes } from './routes.ts'
import { subscriptionRoutes } from './subscription-routes.ts'
import {
  avatarRoutes,
  practiceLogoRoutes,
  uploadFileRoutes,
  uploadRoutes,
} from './upload-routes.ts'

/**
 * Every route of the practice module in one app, mounted once at the API's root: the practice's
 * details, plans, coupons, logo and subscription under `/practice`, uploaded images under
 * `/upload` and the members' avatars under `/users/{id}/avatar`. Within a prefix the sub-apps keep
 * the order they were always matched in.
 */
export function practiceApi(ctx: ServerContext) {
  return (
    new Hono<AppEnv>()
      .route('/practice/logo', practiceLogoRoutes(ctx))
      .route('/practice/subscription', subscriptionRoutes(ctx))
      .route('/practice', practiceRoutes(ctx))
      .route('/practice', practiceDetailRoutes(ctx))
      // Uploaded images are served without a session (an <img> sends none): decision 011.
      .route('/upload', uploadFileRoutes(ctx))
      .route('/upload', uploadRoutes(ctx))
      .route('/users', avatarRoutes(ctx))
  )
}
