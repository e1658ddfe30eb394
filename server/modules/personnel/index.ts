export { personnelRegisterRoutes, personnelRoutes } from './routes.ts'
export { staffColumns, userRoutes } from './user-routes.ts'
