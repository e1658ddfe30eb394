export { appointmentRoutes } from './routes.ts'
