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
} from './routes.ts'
