export {
  AUTH_LIMITS,
  authRoutes,
  dummyPasswordHash,
  refuseWhenLimited,
  usersPermissionsRoutes,
} from './routes.ts'
