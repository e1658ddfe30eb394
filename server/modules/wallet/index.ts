export { createWalletSignIn, walletPractice } from './codes.ts'
export { WALLET_LIMITS } from './limits.ts'
export { requirePatient, walletRoutes } from './routes.ts'
export { PATIENT_TOKEN_PREFIX, type PatientSession } from './sessions.ts'
