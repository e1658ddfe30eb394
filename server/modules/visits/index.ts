export type { RedemptionPosted } from './redeeming.ts'
export { patientRedemptionRoutes, visitRoutes } from './routes.ts'
export { type Checkout, createCheckout, serverCheckout } from './service.ts'
export { PermissionRefusal } from './shared.ts'
