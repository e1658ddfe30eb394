import { Hono } from 'hono'
import type { AppEnv, ServerContext } from '#server/context.ts'
import { promotionLifeRoutes } from './routes.ts'
import { promotionSendRoutes } from './send-routes.ts'

export { type OfferEmailProps, offerEmail } from './offer-email.ts'
export { offerRoutes } from './offer-routes.ts'
export { patientPageRoutes } from './page-routes.ts'
export {
  claimPromotion,
  claimsOfPatient,
  expireClaims,
  funnelFor,
  offerValueText,
} from './service.ts'
export { oneClickUnsubscribeRoutes } from './unsubscribe-routes.ts'
export {
  isUnsubscribeTokenShaped,
  UNSUBSCRIBE_LINK_INVALID,
  unsubscribeByToken,
} from './unsubscribe-service.ts'

/**
 * Everything the module serves under `/promotions`, mounted once: the offers' life and funnel
 * steps, then sending a live offer to patients.
 */
export function promotionRoutes(ctx: ServerContext) {
  return new Hono<AppEnv>()
    .route('/', promotionLifeRoutes(ctx))
    .route('/', promotionSendRoutes(ctx))
}
