export { activityLogRoutes } from './activity-log-routes.ts'
export { reportRoutes } from './routes.ts'
