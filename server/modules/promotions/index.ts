export { offerRoutes } from './offer-routes.ts'
export { patientPageRoutes } from './page-routes.ts'
export { promotionRoutes } from './routes.ts'
export { promotionSendRoutes } from './send-routes.ts'
export { claimsOfPatient, expireClaims, funnelFor } from './service.ts'
export { oneClickUnsubscribeRoutes } from './unsubscribe-routes.ts'
export {
  isUnsubscribeTokenShaped,
  UNSUBSCRIBE_LINK_INVALID,
  unsubscribeByToken,
} from './unsubscribe-service.ts'
