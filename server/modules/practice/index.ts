export { practiceApi } from './api.ts'
export { activePlans, couponByCode } from './queries.ts'
export { UPLOAD_PATH } from './upload-service.ts'
