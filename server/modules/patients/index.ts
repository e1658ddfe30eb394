export { activityRoutes } from './activity-routes.ts'
export { patientImportRoutes } from './import-routes.ts'
export { patientMergeRoutes } from './merge-routes.ts'
export { patientRoutes } from './routes.ts'
