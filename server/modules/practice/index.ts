export { practiceDetailRoutes, practiceRoutes } from './routes.ts'
export { subscriptionRoutes } from './subscription-routes.ts'
export {
  avatarRoutes,
  practiceLogoRoutes,
  UPLOAD_PATH,
  uploadFileRoutes,
  uploadRoutes,
} from './upload-routes.ts'
