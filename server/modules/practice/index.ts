export { practiceApi } from './api.ts'
export { UPLOAD_PATH } from './upload-routes.ts'
