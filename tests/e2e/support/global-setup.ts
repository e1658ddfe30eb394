/** Playwright's global setup for the journeys and the QA path replay: the servers' template. */
import { prepareServerTemplate } from './servers.ts'

export default prepareServerTemplate
