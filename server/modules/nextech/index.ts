export { connectDemoPractice, connectNewPractice } from './connect.ts'
export { nextechRoutes } from './routes.ts'
export { scheduleNextechSync } from './sync.ts'
