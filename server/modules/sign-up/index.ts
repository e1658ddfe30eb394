export { signUpRoutes } from './routes.ts'
export { testTokenRoutes } from './test-token-routes.ts'
