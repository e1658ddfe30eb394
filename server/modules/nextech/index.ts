export { nextechRoutes } from './routes.ts'
