export { createBilling, createBillingClock } from './billing.ts'
export {
  billingClockRoutes,
  cardLinkRoutes,
  membershipPlanRoutes,
  membershipRoutes,
  membershipsOf,
  patientMembershipRoutes,
  paymentAccountRoutes,
  paymentWebhookRoutes,
  scheduleBilling,
} from './routes.ts'
export type { ChangeActor } from './service.ts'
