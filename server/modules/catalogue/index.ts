export { procedureRoutes, productRoutes } from './routes.ts'
