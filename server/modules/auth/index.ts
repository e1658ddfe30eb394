export { AUTH_LIMITS } from './limits.ts'
export {
  authRoutes,
  dummyPasswordHash,
  refuseWhenLimited,
  usersPermissionsRoutes,
} from './routes.ts'
export { type Colleague, colleagueAtTheDesk } from './service.ts'
