/** `npm run build`: the production bundle in dist/, with the prerendered public pages. */
import { ensureBuilt } from './lib/build.ts'

await ensureBuilt(process.cwd(), { force: true })
