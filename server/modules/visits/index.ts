export { patientRedemptionRoutes, visitRoutes } from './routes.ts'
export { type Checkout, createCheckout } from './service.ts'
export { PermissionRefusal } from './shared.ts'
