export { personnelRegisterRoutes, personnelRoutes } from './routes.ts'
export { staffColumns } from './service.ts'
export { userRoutes } from './user-routes.ts'
